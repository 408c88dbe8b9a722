// One MCP session of code mode: the protocol (initialize, ping, tools/list,
// tools/call, cancellation) and the sandbox session behind execute_code. In
// the 2026-07-28 era the same object holds a session handle's REPL state, or
// serves one request (modern_requests.hpp).
#pragma once

#include <memory>
#include <string>

#include "harness/mcp_server/mcp_face.hpp"

namespace harness::mcp_server {

// What a session is for.
enum class session_style {
  protocol,  // a 2025-era protocol session (initialize, Mcp-Session-Id, or stdio's one client)
  handle,    // a 2026-07-28 session handle (open_session): REPL state, no protocol state
  one_shot,  // one 2026-07-28 request without a handle: execute_code runs in a fresh sandbox
};

std::shared_ptr<mcp_session> create_session(const boost::asio::any_io_executor& executor, core::clock& clock,
                                            std::shared_ptr<const face_deps> deps, const face_config& config,
                                            std::string id, std::string user_id, std::string key_id, bool admin,
                                            session_style style = session_style::protocol);

}  // namespace harness::mcp_server
