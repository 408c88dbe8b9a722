// The host side of the runtime protocol for one sandbox: waits for `ready`,
// sends `init`, runs `exec` blocks, answers the `call` frames of each block
// (concurrently, through a tool_gateway and a data_filter), and collects logs,
// the result and changed files. Robust to a hostile runtime: a line that is not
// a frame, an oversized frame, invalid UTF-8 or a runtime that dies mid-call
// fails that exec with a clear error and marks the session broken; it never
// throws, crashes or hangs past the deadline.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/bridge/frame_channel.hpp"
#include "harness/bridge/tool_gateway.hpp"
#include "harness/core/clock.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::bridge {

struct session_limits {
  std::size_t log_bytes = 64 * 1024;     // console output kept per exec (the runtime caps it too)
  std::size_t max_file_bytes = 1 << 20;  // passed to the runtime in init
  std::size_t max_files = 200;           // passed to the runtime in init
  // Keep each tool call's arguments in the block's record (tool_call_record's
  // args_json): the agent shows them in a task's events; /execute and the MCP
  // face do not, and skip the work.
  bool record_call_args = false;
};

struct init_file {
  std::string root;  // "skills" or "workspace"
  std::string path;  // relative to the root
  std::string content;
};

struct log_entry {
  std::string level;
  std::string text;
};

// What a block's record keeps of each call's arguments: at most this much of
// their JSON per call, and this much for all the calls of one block (a loop
// of large calls must not hold the host's memory; later calls keep only
// their size). A task's events show 4 KiB of it: the 512 bytes beyond let the
// censor see whole any value that starts before the events' cut.
inline constexpr std::size_t max_recorded_args_bytes = 4096 + 512;
inline constexpr std::size_t recorded_args_budget = 256 * 1024;

struct tool_call_record {
  std::string name;  // tool name, or the helper ("list_mcp_tools") for discovery calls
  double ms = 0;
  bool ok = false;
  // A tool call's arguments as the code sent them: compact JSON, cut (at a
  // UTF-8 boundary) when longer than max_recorded_args_bytes, empty past the
  // block's recorded_args_budget. Empty for the helpers.
  std::string args_json{};
  std::size_t args_bytes = 0;   // the full size of that JSON (0 for the helpers)
  std::size_t reply_bytes = 0;  // the size of the reply frame the sandbox got (the censored result, or the error)
  std::string error_code{};     // the error's wire name when it failed ("mcp_needs_authorization", ...)
};

struct file_change {
  std::string root;
  std::string path;
  std::string op;       // "write", "delete" or "symlink"
  std::string content;  // decoded bytes, for writes
  std::size_t size = 0;
  bool too_large = false;
  std::string target;  // for symlinks
};

// Whose failure a failed block reports. The host names its own failures
// (to_string gives the "name" of the block's error: "TimeoutError",
// "SandboxError", "ProtocolError"); a failure of the code keeps the name the
// runtime reported ("TypeError", "Error"...), which is data from the sandbox.
enum class failure_kind {
  none,      // the block succeeded
  code,      // the code threw or failed
  timeout,   // it passed its deadline and was stopped; the sandbox is broken
  sandbox,   // the sandbox stopped, or can no longer run code
  protocol,  // the runtime broke the frame protocol; the sandbox is broken
};
// The error name written for a failure of this kind: "" for none, "Error" for code.
std::string_view to_string(failure_kind kind);

struct exec_result {
  bool ok = false;
  nlohmann::json value;  // the block's return value (null when none)
  failure_kind failure = failure_kind::none;
  // On failure: {name, message, stack?}; see failure_kind for the name.
  nlohmann::json error;
  std::vector<log_entry> logs;
  std::vector<tool_call_record> tool_calls;
  std::vector<file_change> files;
  // What the host did with `files` ({"written", "deleted", "refused"}), when
  // the session's owner writes them back (execution::sandbox_session); else null.
  nlohmann::json files_report;
  double ms = 0;          // the block on the host: its frame sent to its `done` read
  double runtime_ms = 0;  // the block as the runtime timed it (its `done` frame's `ms`; 0 when absent)
};

// Marks `result` failed with a failure of the host's: ok false, the kind, and
// an error {name: to_string(kind), message}.
void fail(exec_result& result, failure_kind kind, std::string message);

class runtime_session {
 public:
  virtual ~runtime_session() = default;

  // Waits for the runtime's `ready` frame.
  virtual boost::asio::awaitable<status> wait_ready(std::chrono::milliseconds timeout) = 0;

  // Sends `init` with the session id, limits and files.
  virtual boost::asio::awaitable<status> init(std::string session_id, std::vector<init_file> files) = 0;

  // Runs one block. Never fails as a call: failures are in the exec_result.
  // After a timeout or a protocol failure the session is broken() and the
  // caller must destroy the sandbox. Tool calls of the block get the time
  // left to the block's deadline less a margin, so a slow tool fails the call
  // (and the code can react) before the block itself times out.
  // `trace`: the block's span; each of its tool calls gets a span below it.
  virtual boost::asio::awaitable<exec_result> exec(std::string code, std::chrono::milliseconds timeout,
                                                   telemetry::span_parent trace = {}) = 0;

  // Writes files of the host's own into the sandbox (`put`), with the
  // runtime's own file functions, so nothing the agent's code redefined can
  // get in the way. The files are not reported back as changes. Errors:
  // sandbox_put_failed (the runtime refused them), or the exec failures above.
  virtual boost::asio::awaitable<status> put(std::vector<init_file> files, std::chrono::milliseconds timeout) = 0;

  virtual bool broken() const = 0;
};

// Reads frames until the runtime's `ready` (other lines before it are logged
// and skipped). Errors: sandbox_timeout, sandbox_failed (the channel ended).
// The warm pool calls it before a task claims the sandbox.
boost::asio::awaitable<status> wait_for_ready(core::clock& clock, frame_channel& channel,
                                              std::chrono::milliseconds timeout);

// Writes files every sandbox shares (the example skills) into a runtime that
// is ready and not yet claimed, with a `put` frame, so that a request's own
// `init` carries only the user's files. Errors: sandbox_put_failed,
// sandbox_timeout, sandbox_failed.
boost::asio::awaitable<status> prime_runtime(core::clock& clock, frame_channel& channel, std::vector<init_file> files,
                                             std::chrono::milliseconds timeout);

// `clock`, `channel`, `tools` and `filter` must outlive the session; everything runs on `executor`.
std::unique_ptr<runtime_session> create_runtime_session(const boost::asio::any_io_executor& executor,
                                                        core::clock& clock, frame_channel& channel, tool_gateway& tools,
                                                        data_filter& filter, session_limits limits = {});

}  // namespace harness::bridge
