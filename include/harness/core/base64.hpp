// Standard base64 (RFC 4648, with padding), for binary payloads inside JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace harness::core {

std::string base64_encode(std::string_view bytes);

// nullopt when `text` is not valid padded base64 (whitespace is not allowed).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace harness::core
