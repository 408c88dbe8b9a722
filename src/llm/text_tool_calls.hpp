// Reading code from the text of a model that does not call tools.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace harness::llm {

// The body of the first fenced block tagged javascript/js (``` or ~~~,
// case-insensitive tag), without the fences; nullopt when there is none.
// An unterminated block counts up to the end of the text (a model cut off by
// max_tokens still wrote runnable code up to there more often than not).
std::optional<std::string> extract_javascript_block(std::string_view text);

}  // namespace harness::llm
