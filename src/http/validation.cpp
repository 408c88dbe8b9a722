#include "validation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "harness/core/ids.hpp"
#include "harness/http/errors.hpp"

namespace harness::http {
namespace {

http_response invalid(std::string message) {
  return error_response(http::errc::invalid_request, message);
}

}  // namespace

std::optional<http_response> check_user_id(const nlohmann::json& body, const char* field) {
  auto it = body.find(field);
  if (it == body.end()) return invalid(fmt::format("'{}' is required", field));
  if (!it->is_string()) return invalid(fmt::format("'{}' must be a string", field));
  const auto& value = it->get_ref<const std::string&>();
  if (!core::is_safe_id(value, 64)) {
    return invalid(fmt::format("'{}' must be 1-64 characters of letters, digits, '_', '.' or '-'", field));
  }
  return std::nullopt;
}

std::optional<http_response> check_text(const nlohmann::json& body, const char* field, std::size_t max_chars) {
  auto it = body.find(field);
  if (it == body.end()) return invalid(fmt::format("'{}' is required", field));
  if (!it->is_string()) return invalid(fmt::format("'{}' must be a string", field));
  const auto& value = it->get_ref<const std::string&>();
  if (value.find_first_not_of(" \t\r\n") == std::string::npos) {
    return invalid(fmt::format("'{}' must not be empty", field));
  }
  if (value.size() > max_chars) {
    return invalid(fmt::format("'{}' is {} bytes; the limit is {}", field, value.size(), max_chars));
  }
  return std::nullopt;
}

std::optional<http_response> check_optional_choice(const nlohmann::json& body, const char* field,
                                                   const std::vector<std::string>& allowed) {
  auto it = body.find(field);
  if (it == body.end()) return std::nullopt;
  if (!it->is_string() || std::find(allowed.begin(), allowed.end(), it->get<std::string>()) == allowed.end()) {
    return invalid(fmt::format("'{}' must be one of: {}", field, fmt::join(allowed, ", ")));
  }
  return std::nullopt;
}

std::optional<http_response> check_optional_bool(const nlohmann::json& body, const char* field) {
  auto it = body.find(field);
  if (it == body.end() || it->is_boolean()) return std::nullopt;
  return invalid(fmt::format("'{}' must be true or false", field));
}

std::optional<http_response> check_known_fields(const nlohmann::json& body, const std::vector<std::string>& known) {
  for (const auto& [key, value] : body.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return invalid(fmt::format("unknown field '{}'; accepted fields: {}", key, fmt::join(known, ", ")));
    }
  }
  return std::nullopt;
}

}  // namespace harness::http
