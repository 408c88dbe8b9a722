// The settings of code mode as an MCP server (/mcp and `mcp-harness mcp`).
#pragma once

#include <string>
#include <vector>

#include "harness/core/settings.hpp"
#include "harness/mcp_server/mcp_face.hpp"

namespace harness::mcp_server {

struct face_settings {
  face_config face;
  // MCP_ALLOWED_ORIGINS: browser origins that may call /mcp besides loopback ones.
  std::vector<std::string> allowed_origins;
};

std::vector<core::setting_spec> face_setting_specs();

// Errors invalid_setting, naming the setting.
result<face_settings> load_face_settings(const core::settings& settings);

}  // namespace harness::mcp_server
