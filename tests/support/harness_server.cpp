#include "support/harness_server.hpp"

#include <cstdio>
#include <stdexcept>
#include <thread>

#include <signal.h>

namespace harness::testing {

harness_server::harness_server(const std::map<std::string, std::string>& env, std::chrono::milliseconds timeout) {
  // A key file a developer made in the checkout (data/api-keys.json) must not
  // turn on keys in tests that do not ask for them: a missing file means none.
  auto with_defaults = env;
  with_defaults.emplace("API_KEYS_FILE", "/nonexistent/mcp-harness-test/api-keys.json");
  process_ = std::make_unique<child_process>(std::vector<std::string>{binary_path("src/mcp-harness")}, with_defaults);
  auto line = process_->wait_for_output("listening on http://", timeout);
  if (!line) throw std::runtime_error("the server did not start:\n" + process_->output());
  auto url = line->find("http://");
  port_ = static_cast<unsigned short>(std::stoi(line->substr(line->find(':', url + 7) + 1)));
}

bool harness_server::wait_healthy(int pool_ready, const std::vector<std::string>& components_up,
                                  std::chrono::milliseconds timeout, const std::string& headers) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    auto health = call("GET", "/health", {}, std::chrono::seconds(10), headers);
    if (health) {
      auto c = health->json()["components"];
      bool ok = pool_ready == 0 || (c.contains("pool") && c["pool"].value("ready", 0) >= pool_ready);
      for (const auto& name : components_up) ok = ok && c.contains(name) && c[name]["status"] == "up";
      if (ok) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

std::optional<int> harness_server::stop(std::chrono::milliseconds timeout) {
  if (!exit_code_) {
    process_->send_signal(SIGTERM);
    exit_code_ = process_->wait_exit(timeout);
  }
  return exit_code_;
}

void harness_server::kill_hard() {
  if (exit_code_) return;
  process_->send_signal(SIGKILL);
  exit_code_ = process_->wait_exit(std::chrono::seconds(10));
}

std::optional<raw_response> harness_server::call(const std::string& method, const std::string& target,
                                                 const std::string& body, std::chrono::milliseconds timeout,
                                                 const std::string& extra_headers) {
  return http_call(port_, method, target, body, body.empty() ? "" : "application/json", extra_headers, timeout);
}

std::map<std::string, std::string> end_to_end_env(const std::string& owner, const std::string& root,
                                                  const std::string& files, const std::string& llm_base_url,
                                                  const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env{
      {"PORT", "0"},
      {"ENV_FILE", "/dev/null"},
      {"SANDBOX_TIMEOUT_MS", "3000"},
      {"SANDBOX_POOL_SIZE", "1"},
      // Exactly one, whatever the demand: tests count the containers left.
      {"SANDBOX_POOL_MAX", "1"},
      {"SANDBOX_OWNER", owner},
      {"MCP_FS_ROOT", files},
      {"MEMORY_FILE_PATH", root + "/memory.jsonl"},
      {"STORE_PATH", root + "/harness.db"},
      {"SKILLS_DIR", root + "/skills"},
      {"WORKSPACE_DIR", root + "/workspace"},
      {"LLM_PROVIDER", "openai"},
      {"LLM_BASE_URL", llm_base_url},
      {"LLM_API_KEY", "test-key"},
      {"LLM_MAX_RETRIES", "0"},
  };
  for (const auto& [name, value] : extra) env[name] = value;
  return env;
}

int labelled_containers(const std::string& owner) {
  std::string cmd = "docker ps -aq --filter label=org.mcp-harness.sandbox=" + owner + " | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  int n = -1;
  if (p && fscanf(p, "%d", &n) != 1) n = -1;
  if (p) pclose(p);
  return n;
}

}  // namespace harness::testing
