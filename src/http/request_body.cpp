#include "request_body.hpp"

#include <fmt/format.h>

#include "harness/http/errors.hpp"
#include "strict_json.hpp"

namespace harness::http {
namespace {

bool is_json_content_type(std::string_view value) {
  // "application/json" with optional parameters ("; charset=utf-8").
  auto semicolon = value.find(';');
  std::string_view type = value.substr(0, semicolon);
  while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
  return iequals(type, "application/json");
}

// The first content coding other than identity, over every Content-Encoding
// line: reading such a body as JSON would parse the compressed bytes.
std::optional<std::string_view> unsupported_coding(const http_request& request) {
  for (const auto& [name, value] : request.headers) {
    if (!iequals(name, "Content-Encoding")) continue;
    for (auto coding : split_field_list(value)) {
      if (!iequals(coding, "identity")) return coding;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<http_response> parse_json_body(const http_request& request, nlohmann::json& body) {
  auto content_type = request.header("Content-Type");
  if (!content_type || !is_json_content_type(*content_type)) {
    return error_response(http::errc::unsupported_media_type,
                          "the body must be JSON: send Content-Type: application/json");
  }
  if (auto coding = unsupported_coding(request)) {
    auto response = error_response(
        http::errc::unsupported_media_type,
        fmt::format("the body has Content-Encoding '{}', which this server does not decode; send it unencoded",
                    coding->substr(0, 40)));
    response.set_header("Accept-Encoding", "identity");
    return response;
  }
  if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return error_response(http::errc::malformed_json, "the body is empty; send a JSON object");
  }
  auto parsed = parse_strict_json(request.body);
  if (!parsed) return error_response(parsed.error().code, parsed.error().message);
  if (!parsed->is_object()) return error_response(http::errc::invalid_body, "the body must be a JSON object");
  body = std::move(*parsed);
  return std::nullopt;
}

}  // namespace harness::http
