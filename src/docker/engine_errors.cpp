#include "engine_errors.hpp"
#include "harness/core/json_parse.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/docker/errors.hpp"

namespace harness::docker::detail {

std::string engine_message(const std::string& body) {
  auto parsed = core::parse_json(body);
  if (parsed.is_object() && parsed.contains("message") && parsed["message"].is_string()) {
    return parsed["message"].get<std::string>();
  }
  std::string text = body.substr(0, 500);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text.empty() ? "(no message)" : text;
}

error engine_error(unsigned http_status, const std::string& body, const std::string& what) {
  std::string message = engine_message(body);
  std::string text = fmt::format("{} failed: {}", what, message);
  switch (http_status) {
    case 404:
      if (message.find("image") != std::string::npos) {
        return make_error(docker::errc::image_not_found, text, "build or pull the image first");
      }
      return make_error(docker::errc::not_found, text);
    case 409:
      return make_error(docker::errc::conflict, text);
    case 400:
      return make_error(docker::errc::bad_request, text,
                        "the engine rejected a setting; check the sandbox configuration");
    case 401:
    case 403:
      return make_error(docker::errc::engine_error, text,
                        "the engine refused access; check DOCKER_HOST and its certificates");
    default:
      return make_error(docker::errc::engine_error, fmt::format("{} (HTTP {})", text, http_status),
                        "see the engine's log for details");
  }
}

error protocol_error(const std::string& what, const std::string& detail) {
  return make_error(docker::errc::protocol_error,
                    fmt::format("unexpected answer from the Docker engine to {}: {}", what, detail));
}

}  // namespace harness::docker::detail
