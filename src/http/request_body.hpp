// The rules for a JSON request body, in one place so that every route that
// takes one applies the same: Content-Type application/json, no content coding
// we would have to undo, and exactly one JSON object read by parse_strict_json.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "harness/http/message.hpp"

namespace harness::http {

// Fills `body` with the request's JSON object, or returns the response to send:
//   415 unsupported_media_type: Content-Type is not application/json, or a
//       Content-Encoding other than identity is applied (named; the response
//       says Accept-Encoding: identity, as RFC 9110 section 15.5.16 asks);
//   400 malformed_json / invalid_body: the body is empty, not one JSON value,
//       not an object, or refused by parse_strict_json (the message says why).
std::optional<http_response> parse_json_body(const http_request& request, nlohmann::json& body);

}  // namespace harness::http
