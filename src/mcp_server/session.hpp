// One MCP session of code mode: the protocol (initialize, ping, tools/list,
// tools/call, cancellation) and the sandbox session behind execute_code.
#pragma once

#include <memory>
#include <string>

#include "harness/mcp_server/mcp_face.hpp"

namespace harness::mcp_server {

std::shared_ptr<mcp_session> create_session(const boost::asio::any_io_executor& executor, core::clock& clock,
                                            std::shared_ptr<const face_deps> deps, const face_config& config,
                                            std::string id, std::string user_id, std::string key_id, bool admin);

}  // namespace harness::mcp_server
