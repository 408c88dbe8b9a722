// How the engine's answers become harness::error values (internal).
#pragma once

#include <string>

#include "harness/core/error.hpp"

namespace harness::docker::detail {

// The "message" field of an engine error body, or the raw body when it is not JSON.
std::string engine_message(const std::string& body);

// Maps an engine answer that is not a success to a typed error. what names the
// operation ("create container", "inspect image mcp-harness-sandbox").
error engine_error(unsigned http_status, const std::string& body, const std::string& what);

error protocol_error(const std::string& what, const std::string& detail);

}  // namespace harness::docker::detail
