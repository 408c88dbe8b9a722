#include "harness/execution/execution_settings.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "harness/bridge/call_socket.hpp"

namespace harness::execution {

std::vector<core::setting_spec> execution_setting_specs() {
  return {
      {"SANDBOX_POOL_SIZE", "2",
       "sandboxes kept started and ready ahead of time, at least (0 turns the warm pool off)"},
      {"SANDBOX_POOL_MAX", "8", "the most sandboxes the warm pool keeps ready when demand rises"},
      {"SANDBOX_PYTHON_POOL_MAX", "4",
       "Python sandboxes: none kept until Python code runs, then up to this many ready as its demand rises "
       "(0: every Python block starts its own)"},
      {"SANDBOX_POOL_PARALLEL_STARTS", "2",
       "pool sandboxes started at once, at most (fewer while the engine answers slowly)"},
      {"SANDBOX_READY_TIMEOUT_MS", "20000", "longest wait for a new sandbox's runtime to boot"},
      {"SANDBOX_IDLE_TIMEOUT_MS", "300000", "an /execute session unused this long is ended and its sandbox removed"},
      {"SANDBOX_MAX_SESSIONS", "16", "live /execute sessions at once (429 past it)"},
      {"SANDBOX_MAX_SESSIONS_PER_USER", "4", "live /execute sessions of one user at once (429 past it)"},
      {"SANDBOX_MAX_RUNNING_PER_USER", "4", "one-shot /execute blocks (no sessionId) of one user running at once"},
      {"SANDBOX_MAX_RUNNING_PER_KEY", "8", "one-shot /execute blocks of one API key running at once"},
      {"SANDBOX_RUN_QUEUE_MS", "2000",
       "how long a one-shot /execute past those waits for one to end before it is refused (429)"},
      {"SANDBOX_LOG_BYTES", "65536", "console output kept per code block"},
      {"SANDBOX_MAX_FILE_BYTES", "1048576", "largest file a block may write back from /skills or /workspace"},
      {"SANDBOX_MAX_FILES", "200", "most files a sandbox may hold in /skills and /workspace"},
      {"SANDBOX_CALL_SOCKET_DIR", "data/sockets",
       "folder for the unix sockets the sandboxes' protocol runs on (one per sandbox, mounted into it; must be on "
       "the engine's host under the same path); empty: the containers' stdio, several times slower per tool call"},
  };
}

result<execution_settings> load_execution_settings(const core::settings& s, std::chrono::milliseconds exec_timeout) {
  execution_settings out;
  auto pool_size = s.get_int("SANDBOX_POOL_SIZE", 0, 64);
  if (!pool_size) return pool_size.error();
  auto pool_max = s.get_int("SANDBOX_POOL_MAX", 0, 256);
  if (!pool_max) return pool_max.error();
  auto python_max = s.get_int("SANDBOX_PYTHON_POOL_MAX", 0, 256);
  if (!python_max) return python_max.error();
  auto parallel = s.get_int("SANDBOX_POOL_PARALLEL_STARTS", 1, 32);
  if (!parallel) return parallel.error();
  auto ready = s.get_ms("SANDBOX_READY_TIMEOUT_MS", 1000, 600000);
  if (!ready) return ready.error();
  auto idle = s.get_ms("SANDBOX_IDLE_TIMEOUT_MS", 1000, 86400000);
  if (!idle) return idle.error();
  auto sessions = s.get_int("SANDBOX_MAX_SESSIONS", 1, 10000);
  if (!sessions) return sessions.error();
  auto per_user = s.get_int("SANDBOX_MAX_SESSIONS_PER_USER", 1, 10000);
  if (!per_user) return per_user.error();
  auto running_per_user = s.get_int("SANDBOX_MAX_RUNNING_PER_USER", 1, 10000);
  if (!running_per_user) return running_per_user.error();
  auto running_per_key = s.get_int("SANDBOX_MAX_RUNNING_PER_KEY", 1, 10000);
  if (!running_per_key) return running_per_key.error();
  auto run_queue = s.get_ms("SANDBOX_RUN_QUEUE_MS", 0, 600000);
  if (!run_queue) return run_queue.error();
  auto log_bytes = s.get_int("SANDBOX_LOG_BYTES", 1024, 64 << 20);
  if (!log_bytes) return log_bytes.error();
  auto file_bytes = s.get_int("SANDBOX_MAX_FILE_BYTES", 1, 1 << 30);
  if (!file_bytes) return file_bytes.error();
  auto files = s.get_int("SANDBOX_MAX_FILES", 0, 100000);
  if (!files) return files.error();
  out.pool.size = static_cast<std::size_t>(*pool_size);
  // A maximum below the minimum is the minimum: the pool never holds fewer than SANDBOX_POOL_SIZE.
  out.pool.max_size = std::max(out.pool.size, static_cast<std::size_t>(*pool_max));
  out.pool.parallel_starts = static_cast<std::size_t>(*parallel);
  if (const auto& dir = s.get("SANDBOX_CALL_SOCKET_DIR"); !dir.empty()) {
    // The engine resolves bind-mount sources itself: the path must be absolute.
    std::error_code ec;
    auto absolute = std::filesystem::absolute(dir, ec);
    if (ec)
      return make_error(core::errc::invalid_setting, "invalid SANDBOX_CALL_SOCKET_DIR '" + dir + "': " + ec.message());
    out.pool.call_socket_dir = absolute.lexically_normal().string();
    // Checked here too, so that a bad value stops start-up rather than every sandbox start.
    if (out.pool.call_socket_dir.size() > bridge::call_socket::max_dir_length) {
      return make_error(core::errc::invalid_setting,
                        "SANDBOX_CALL_SOCKET_DIR is too long for unix sockets: " + out.pool.call_socket_dir,
                        fmt::format("use a folder with a path of at most {} characters, e.g. /run/mcp-harness",
                                    bridge::call_socket::max_dir_length));
    }
  }
  out.pool.ready_timeout = *ready;
  // The Python pool shares the JavaScript one's settings but its sizes.
  out.python_pool = out.pool;
  out.python_pool.language = sandbox::language::python;
  out.python_pool.size = 0;
  out.python_pool.max_size = static_cast<std::size_t>(*python_max);
  out.python_pool.on_demand = true;
  out.service.exec_timeout = exec_timeout;
  out.service.idle_timeout = *idle;
  out.service.max_sessions = static_cast<std::size_t>(*sessions);
  out.service.max_sessions_per_user = static_cast<std::size_t>(*per_user);
  out.service.max_running_per_user = static_cast<std::size_t>(*running_per_user);
  out.service.max_running_per_key = static_cast<std::size_t>(*running_per_key);
  out.service.run_queue_wait = *run_queue;
  out.service.limits.log_bytes = static_cast<std::size_t>(*log_bytes);
  out.service.limits.max_file_bytes = static_cast<std::size_t>(*file_bytes);
  out.service.limits.max_files = static_cast<std::size_t>(*files);
  return out;
}

}  // namespace harness::execution
