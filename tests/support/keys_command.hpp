// `mcp-harness keys` run as a child process, the way an operator makes keys:
// the end-to-end tests make their real key files with it.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "support/child_process.hpp"

namespace harness::testing {

// The whole file (empty when it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `mcp-harness keys ARGS` on the key file `file`: its exit code and
// stdout (stderr goes to keys-stderr.txt beside the file).
inline std::pair<int, std::string> keys_command(const std::filesystem::path& file, const std::string& args) {
  using namespace std::chrono_literals;
  std::filesystem::create_directories(file.parent_path());
  auto err = file.parent_path() / "keys-stderr.txt";
  child_process child({"/bin/sh", "-c", "\"$HARNESS\" keys " + args + " 2>\"$ERR\""},
                      {{"ENV_FILE", "/dev/null"},
                       {"API_KEYS_FILE", file.string()},
                       {"HARNESS", binary_path("src/mcp-harness")},
                       {"ERR", err.string()}});
  auto code = child.wait_exit(60s);
  return {code.value_or(-1), child.output()};
}

// `keys add ARGS`: the new key (throws with the command's stderr on failure).
inline std::string add_key(const std::filesystem::path& file, const std::string& args) {
  auto [code, out] = keys_command(file, "add " + args);
  if (code != 0 || out.empty()) {
    throw std::runtime_error("keys add " + args + " failed: " + read_file(file.parent_path() / "keys-stderr.txt"));
  }
  return out.substr(0, out.find('\n'));
}

}  // namespace harness::testing
