// Texts that put the pieces of the built-in patterns side by side: values at
// the edges of the text and of lines, glued to each other, to letters and to
// non-ASCII bytes, near misses of every layout, and random mixes of such
// fragments. For tests that compare two ways of finding the same values.
#pragma once

#include <string>
#include <vector>

namespace harness::pii::test {

// The same texts on every call and every platform.
std::vector<std::string> edge_texts();

}  // namespace harness::pii::test
