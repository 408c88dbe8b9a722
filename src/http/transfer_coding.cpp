#include "transfer_coding.hpp"
#include "harness/http/errors.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

namespace harness::http {
namespace {

// A coding's name as quoted in a message: header values can be kilobytes long.
constexpr std::size_t name_max = 40;

// RFC 9110 section 5.6.2: 1*tchar.
bool is_token(std::string_view text) {
  constexpr std::string_view punctuation = "!#$%&'*+-.^_`|~";
  return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || punctuation.find(c) != std::string_view::npos;
  });
}

http_response bad_framing(const std::string& why) {
  return error_response(http::errc::bad_request,
                        fmt::format("Transfer-Encoding is not valid: {}; send the body with Content-Length, or with "
                                    "Transfer-Encoding: chunked alone",
                                    why));
}

}  // namespace

std::optional<http_response> check_transfer_encoding(const std::vector<std::string_view>& field_values,
                                                     unsigned version) {
  if (field_values.empty()) return std::nullopt;
  // RFC 9112 section 6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
  if (version < 11) return bad_framing("HTTP/1.0 has no transfer codings");
  std::vector<std::string_view> names;  // in the order they were applied
  bool chunked_has_parameters = false;
  for (auto value : field_values) {
    for (auto coding : split_field_list(value)) {
      auto semicolon = coding.find(';');
      auto name = coding.substr(0, semicolon);
      while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
      if (!is_token(name)) return bad_framing(fmt::format("'{}' is not a transfer coding", coding.substr(0, name_max)));
      if (iequals(name, "chunked") && semicolon != std::string_view::npos) chunked_has_parameters = true;
      names.push_back(name);
    }
  }
  auto chunked = std::count_if(names.begin(), names.end(), [](std::string_view n) { return iequals(n, "chunked"); });
  if (chunked > 1) return bad_framing("chunked is applied more than once");
  // Without chunked last, the body's end cannot be known (RFC 9112 section 6.3).
  if (chunked == 0 || !iequals(names.back(), "chunked")) return bad_framing("chunked must be the last transfer coding");
  if (chunked_has_parameters) return bad_framing("chunked takes no parameters");
  if (names.size() > 1) {
    return error_response(http::errc::not_implemented,
                          fmt::format("the transfer coding '{}' is not implemented; send the body with "
                                      "Transfer-Encoding: chunked alone, or with Content-Length",
                                      names.front().substr(0, name_max)));
  }
  return std::nullopt;
}

}  // namespace harness::http
