// The real mcp-harness binary on a free port, set up for tests of its front
// door: no MCP servers, no warm pool, and an owner label of its own so
// start-up sweeps never touch other tests' containers.
#pragma once

#include <unistd.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/child_process.hpp"

namespace harness::testing {

class ServerProcess {
 public:
  // Throws std::runtime_error with the server's output when it does not start.
  explicit ServerProcess(std::map<std::string, std::string> env = {}, std::vector<std::string> extra_args = {}) {
    using namespace std::chrono_literals;
    env.emplace("PORT", "0");
    env.emplace("ENV_FILE", "/dev/null");
    env.emplace("MCP_CONFIG", source_path("tests/http/no_mcp_servers.json"));
    env.emplace("SANDBOX_POOL_SIZE", "0");
    env.emplace("SANDBOX_OWNER", "http-it-" + std::to_string(getpid()));
    // The raw requests of these tests name their host "x", as a proxy in front could.
    env.emplace("ALLOWED_HOSTS", "x");
    std::vector<std::string> argv{binary_path("src/mcp-harness")};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    process_ = std::make_unique<child_process>(argv, env);
    auto line = process_->wait_for_output("listening on http://", 20s);
    if (!line) throw std::runtime_error("server did not start: " + process_->output());
    auto url = line->find("http://");
    port_ = static_cast<unsigned short>(std::stoi(line->substr(line->find(':', url + 7) + 1)));
  }
  unsigned short port() const { return port_; }
  child_process& process() { return *process_; }

 private:
  std::unique_ptr<child_process> process_;
  unsigned short port_ = 0;
};

}  // namespace harness::testing
