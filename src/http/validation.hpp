// Field checks shared by the JSON endpoints. Each failure is the 400 response
// to send, with a message that names the field and the rule.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/http/message.hpp"

namespace harness::http {

// userId: 1-64 characters of [A-Za-z0-9_.-].
std::optional<http_response> check_user_id(const nlohmann::json& body, const char* field = "userId");

// A required non-empty string of at most max_chars bytes.
std::optional<http_response> check_text(const nlohmann::json& body, const char* field, std::size_t max_chars);

// An optional string field, when present, is one of `allowed`.
std::optional<http_response> check_optional_choice(const nlohmann::json& body, const char* field,
                                                   const std::vector<std::string>& allowed);

// A field that, when present, must be a JSON boolean.
std::optional<http_response> check_optional_bool(const nlohmann::json& body, const char* field);

// Fields not in `known` are rejected, so a typo ("usrId") is an error, not a silent default.
std::optional<http_response> check_known_fields(const nlohmann::json& body, const std::vector<std::string>& known);

}  // namespace harness::http
