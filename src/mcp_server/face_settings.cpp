#include "harness/mcp_server/face_settings.hpp"

#include "harness/core/errors.hpp"

namespace harness::mcp_server {

std::vector<core::setting_spec> face_setting_specs() {
  return {
      {"MCP_SESSION_IDLE_SECONDS", "1800", "a /mcp session unused this long is ended with its sandbox"},
      {"MCP_MAX_SESSIONS", "64", "live /mcp sessions at once (initialize past it answers 503)"},
      {"MCP_MAX_SESSIONS_PER_KEY", "16", "live /mcp sessions one API key may hold (past it: 429)"},
      {"MCP_MAX_SESSIONS_PER_USER", "16", "live /mcp sessions one user may hold (past it: 429)"},
      {"MCP_TASK_AFTER_MS", "1000",
       "an MCP 2026-07-28 execute_code from a client that declares the Tasks extension answers with a task (polled "
       "with tasks/get) once it ran this long; shorter blocks answer directly"},
      {"MCP_ALLOWED_ORIGINS", "",
       "comma-separated browser origins (scheme://host[:port]) allowed to call /mcp besides the server's own; any "
       "other Origin header is refused with 403, against DNS rebinding"},
  };
}

result<face_settings> load_face_settings(const core::settings& s) {
  face_settings out;
  auto idle = s.get_int("MCP_SESSION_IDLE_SECONDS", 10, 7 * 86400);
  if (!idle) return idle.error();
  auto sessions = s.get_int("MCP_MAX_SESSIONS", 1, 10000);
  if (!sessions) return sessions.error();
  out.face.session_idle = std::chrono::seconds(*idle);
  out.face.max_sessions = static_cast<std::size_t>(*sessions);
  auto per_key = s.get_int("MCP_MAX_SESSIONS_PER_KEY", 1, 10000);
  if (!per_key) return per_key.error();
  auto per_user = s.get_int("MCP_MAX_SESSIONS_PER_USER", 1, 10000);
  if (!per_user) return per_user.error();
  out.face.max_sessions_per_key = static_cast<std::size_t>(*per_key);
  out.face.max_sessions_per_user = static_cast<std::size_t>(*per_user);
  auto task_after = s.get_int("MCP_TASK_AFTER_MS", 0, 600000);
  if (!task_after) return task_after.error();
  out.face.task_after = std::chrono::milliseconds(*task_after);
  const std::string& origins = s.get("MCP_ALLOWED_ORIGINS");
  std::size_t start = 0;
  while (start <= origins.size()) {
    auto comma = origins.find(',', start);
    std::string item = origins.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) {
      if (item.rfind("http://", 0) != 0 && item.rfind("https://", 0) != 0) {
        return make_error(core::errc::invalid_setting, "MCP_ALLOWED_ORIGINS has '" + item + "', which is no origin",
                          "list origins as scheme://host[:port], e.g. https://app.example.com");
      }
      while (!item.empty() && item.back() == '/') item.pop_back();
      out.allowed_origins.push_back(std::move(item));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace harness::mcp_server
