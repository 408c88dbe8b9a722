// The harness as an MCP server ("code mode"): an MCP client (Claude Desktop,
// Claude Code, Cursor, VS Code) adds this one server and gets three tools,
// search_tools, describe_tools and execute_code, in front of the configured
// MCP servers, the sandbox and the PII censor. Transport-free: the /mcp route
// (Streamable HTTP) and `mcp-harness mcp` (stdio) hand it JSON-RPC messages.
//
// Use it on one executor (the I/O thread), like the services it drives.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/abandonment.hpp"
#include "harness/core/clock.hpp"
#include "harness/mcp_server/event_stream.hpp"

namespace harness::agent {
class agent_manager;
}
namespace harness::bridge {
class tool_gateway;
}
namespace harness::execution {
class execution_service;
}
namespace harness::skills {
class skill_library;
}

namespace harness::telemetry {
class tracer;
}
namespace harness::mcp_server {

struct face_config {
  // How often a running execute_code reports progress (when the request asked for it).
  std::chrono::milliseconds progress_interval{1000};
  // An HTTP session unused this long is ended (MCP_SESSION_IDLE_SECONDS).
  std::chrono::milliseconds session_idle{std::chrono::minutes(30)};
  // Live HTTP sessions at once (MCP_MAX_SESSIONS); initialize past it is refused.
  std::size_t max_sessions = 64;
  // Of those, the most one API key, and one user, may hold (MCP_MAX_SESSIONS_PER_KEY,
  // MCP_MAX_SESSIONS_PER_USER): one caller cannot take every session.
  std::size_t max_sessions_per_key = 16;
  std::size_t max_sessions_per_user = 16;
  // Largest `code` of execute_code (SANDBOX_MAX_CODE_BYTES).
  std::size_t code_max_chars = 1 << 20;
  // How long a call that needs approval waits for the client's answer (APPROVAL_TIMEOUT_MS).
  std::chrono::milliseconds approval_timeout{300000};
  // A new-era execute_code of a client that declares the Tasks extension
  // answers with a task once it ran this long (MCP_TASK_AFTER_MS).
  std::chrono::milliseconds task_after{1000};
  // With replicas sharing a store: this replica's name (SANDBOX_OWNER), put
  // at the end of every session id ("mcp_<hex>.<replica>") so that another
  // replica names the holder and a load balancer can route by it. Empty: ids
  // carry no replica.
  std::string replica{};
};

struct face_deps {
  std::shared_ptr<bridge::tool_gateway> tools = nullptr;  // the upstream tools (what the sandbox's helpers reach)
  std::shared_ptr<execution::execution_service> execution = nullptr;
  // The user's skills, offered as resources (skill://<name>/SKILL.md); none without it.
  std::shared_ptr<const skills::skill_library> skills = nullptr;
  boost::asio::any_io_executor blocking = {};  // where the library's disk reads run (inline when null)
  // The agent, when an LLM is configured: the run_task tool (task_tool.hpp). None: no such tool.
  std::shared_ptr<agent::agent_manager> agent = nullptr;
  // Records a server span for each execute_code and run_task call, the child
  // of the trace context in the request's _meta (null: tracing off).
  std::shared_ptr<telemetry::tracer> tracer = nullptr;
};

// Where a session sends what is not the answer to the request in hand: a
// notifications/progress of a running execute_code, or a request of ours to
// the client (elicitation/create) that belongs to it.
using notify_fn = std::function<void(nlohmann::json)>;

// One MCP session: one user, one sandbox with REPL state, one PII vault.
class mcp_session {
 public:
  virtual ~mcp_session() = default;
  virtual const std::string& id() const = 0;
  virtual const std::string& user_id() const = 0;
  // The API key that opened it (empty when the server runs open): requests
  // with another key do not find it.
  virtual const std::string& key_id() const = 0;
  // The protocol version agreed at initialize (empty before).
  virtual const std::string& protocol_version() const = 0;
  // Handles one JSON-RPC message (a single message, not a batch). A request
  // gets its response, errors included; a notification or a response from
  // the client gets nullopt, and so does a request the client cancelled
  // meanwhile (the protocol says not to answer it).
  virtual boost::asio::awaitable<std::optional<nlohmann::json>> handle(nlohmann::json message, notify_fn notify) = 0;
  // Ends the session: a block in flight is stopped, the sandbox removed.
  virtual boost::asio::awaitable<void> close() = 0;
  virtual core::steady_time last_active() const = 0;
  virtual bool busy() const = 0;
  // The SSE streams of this session's requests (Streamable HTTP), kept so
  // that a client can resume one after a dropped connection.
  virtual event_stream_table& streams() = 0;
  // The client declared the elicitation capability: a tools/call may need a
  // stream to ask over (an approval), so HTTP answers it with SSE.
  virtual bool can_elicit() const = 0;
  // The client's capabilities, for what the session may ask it: said at
  // initialize in the 2025 era, with every request in 2026-07-28.
  virtual void set_client_capabilities(const nlohmann::json& capabilities) = 0;
  // A 2026-07-28 session handle (open_session), not a 2025 protocol session:
  // each is found only by its own era's requests.
  virtual bool is_handle() const = 0;
};

// Why open() made no session.
enum class session_refusal {
  none,
  stopping,     // the server is shutting down
  server_full,  // max_sessions are live
  key_full,     // the key holds max_sessions_per_key
  user_full,    // the user holds max_sessions_per_user
};

// Who a request of the 2026-07-28 era acts for: with no protocol session to
// remember it, the transport says it with every request.
struct mcp_caller {
  std::string user_id;
  std::string key_id;  // empty when the server runs open
  bool admin = false;  // the tool policy's "role": "admin"
};

struct opened_session {
  std::shared_ptr<mcp_session> session;  // null when refused
  session_refusal refused = session_refusal::none;
};

class mcp_face {
 public:
  virtual ~mcp_face() = default;
  // A session not kept in the table (stdio: one client, one session). It is
  // the operator's: admin rights for the tool policy's "role".
  virtual std::shared_ptr<mcp_session> open_private(std::string user_id) = 0;
  // A new HTTP session in the table, or why there is none (the caps above).
  // `admin`: the caller's key (or the open caller) has admin rights.
  virtual opened_session open(std::string user_id, std::string key_id, bool admin) = 0;
  // The live HTTP session with this id opened with this key, else null.
  virtual std::shared_ptr<mcp_session> find(const std::string& id, const std::string& key_id) = 0;
  // The replica that `id` names when that is not this one (the session lives
  // there); empty for ids of this replica or of none.
  virtual std::string elsewhere(const std::string& id) const = 0;
  // Ends and forgets one HTTP session; false when there is none.
  virtual boost::asio::awaitable<bool> end(std::string id, std::string key_id) = 0;
  // Ends every session (server shutdown).
  virtual boost::asio::awaitable<void> shutdown() = 0;
  virtual std::size_t session_count() const = 0;
  // One message of the 2026-07-28 era (modern.hpp), already checked with
  // modern::check_envelope: stateless, acting for `caller`. REPL state lives
  // under session handles (open_session), kept in the same table as the
  // sessions above. A notification gets nullopt. `abandoned` (may be null)
  // fires when the client goes away before the answer (a closed HTTP
  // connection): a running execute_code or run_task is then stopped.
  virtual boost::asio::awaitable<std::optional<nlohmann::json>> handle_modern(
      nlohmann::json message, mcp_caller caller, notify_fn notify, std::shared_ptr<core::abandonment> abandoned) = 0;
};

// Starts the idle sweep of HTTP sessions on `executor`.
// `clock` times sessions' idleness, approvals and progress; it must outlive the face.
std::shared_ptr<mcp_face> create_mcp_face(const boost::asio::any_io_executor& executor, core::clock& clock,
                                          face_deps deps, face_config config);

// Whether a JSON-RPC message is a request (has a method and an id), a
// notification (a method, no id), or something else (a response, or junk).
enum class message_kind { request, notification, other };
message_kind kind_of(const nlohmann::json& message);

// The 2025-era protocol versions this server speaks through initialize,
// newest first (the 2026-07-28 era's: modern::versions()).
const std::vector<std::string>& supported_versions();

}  // namespace harness::mcp_server
