// UTF-8 validity check, so that serialisers can tell text they may write as a
// JSON string from bytes they must encode losslessly. Internal.
#pragma once

#include <string_view>

namespace harness::pii::detail {

// True when `s` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view s);

}  // namespace harness::pii::detail
