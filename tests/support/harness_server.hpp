// Test helper: the real mcp-harness binary as a child process on a port the
// OS picks, with helpers to wait for its components and to count the sandbox
// containers it left behind.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "support/child_process.hpp"
#include "support/raw_http.hpp"

namespace harness::testing {

class harness_server {
 public:
  // Starts the binary with `env` (on top of the test's environment) and waits
  // for "listening on". Throws std::runtime_error with the output when it does not come.
  explicit harness_server(const std::map<std::string, std::string>& env,
                          std::chrono::milliseconds timeout = std::chrono::seconds(30));

  unsigned short port() const { return port_; }

  // Polls GET /health until the pool has `ready` sandboxes and every named
  // component is "up"; false on timeout. A server that needs keys shows the
  // pool's details to an admin key only: pass its header in `headers`.
  bool wait_healthy(int pool_ready, const std::vector<std::string>& components_up,
                    std::chrono::milliseconds timeout = std::chrono::seconds(60), const std::string& headers = {});

  // SIGTERM and wait; the exit code (nullopt on timeout). Later calls answer the same.
  std::optional<int> stop(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // SIGKILL, as a crash would end it: no shutdown, its sandboxes stay behind.
  void kill_hard();

  std::optional<raw_response> call(const std::string& method, const std::string& target, const std::string& body = {},
                                   std::chrono::milliseconds timeout = std::chrono::seconds(10),
                                   const std::string& extra_headers = {});

  const std::string& output() { return process_->output(); }

 private:
  std::unique_ptr<child_process> process_;
  unsigned short port_ = 0;
  std::optional<int> exit_code_;
};

// The settings of a whole server for an end-to-end test: sandboxes labelled
// `owner` (a pool of one), the npm MCP servers with their files in `files`,
// SQLite, skills and workspaces under `root`, and the OpenAI-compatible LLM
// at `llm_base_url` (no retries). `extra` is applied last.
std::map<std::string, std::string> end_to_end_env(const std::string& owner, const std::string& root,
                                                  const std::string& files, const std::string& llm_base_url,
                                                  const std::map<std::string, std::string>& extra = {});

// Containers carrying our owner label, running or not (through the docker CLI); -1 on failure.
int labelled_containers(const std::string& owner);

}  // namespace harness::testing
