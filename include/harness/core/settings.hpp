// Settings: every configurable value of the server, resolved from (lowest to
// highest precedence) built-in defaults, a .env file, the process environment
// and command-line flags. Each component declares its own setting_specs and
// turns the resolved strings into its typed config; the app concatenates them,
// so `--help` lists every setting exactly once.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/core/error.hpp"

namespace harness::core {

struct setting_spec {
  std::string name;           // environment-variable spelling, e.g. "PORT"
  std::string default_value;  // as it would be written in .env; may be empty
  std::string help;           // one line for --help
  bool secret = false;        // never printed (API keys); --help shows only whether set
};

// The flag spelling of a setting: "SANDBOX_MEMORY_MB" -> "--sandbox-memory-mb".
std::string flag_name(const std::string& setting_name);

// Where values came from, for tests and `--help`; all optional.
struct setting_sources {
  std::map<std::string, std::string> env;  // the process environment
  std::optional<std::string> dotenv_text;  // contents of the .env file
  std::vector<std::string> args;           // argv[1..], flags only
};

// Reads the process environment into a map (only names that specs declare, plus ENV_FILE).
std::map<std::string, std::string> environment_of(std::span<const setting_spec> specs);

class settings {
 public:
  // Resolves every spec. Fails (with one line naming the setting or flag and
  // the problem) on an unknown flag, a flag without a value, or a malformed
  // .env line. Unknown names in the environment or .env are ignored: the
  // environment holds plenty that is not ours.
  static result<settings> resolve(std::span<const setting_spec> specs, const setting_sources& sources);

  // The resolved string; a name no spec declares is a programming error (throws).
  const std::string& get(const std::string& name) const;

  // Typed accessors; each error names the setting and the rule it broke.
  result<std::int64_t> get_int(const std::string& name, std::int64_t min, std::int64_t max) const;
  result<bool> get_bool(const std::string& name) const;
  result<std::chrono::milliseconds> get_ms(const std::string& name, std::int64_t min_ms, std::int64_t max_ms) const;
  // One of `allowed`, compared case-sensitively.
  result<std::string> get_choice(const std::string& name, const std::vector<std::string>& allowed) const;

  // True when the value did not come from the default.
  bool is_set_explicitly(const std::string& name) const;

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> explicit_;
};

// Parses .env text: KEY=VALUE lines, '#' comments, optional `export `, single or
// double quotes around the value (double quotes understand \n, \" and \\).
result<std::map<std::string, std::string>> parse_dotenv(const std::string& text);

// The --help text: usage line, then every setting with its flag, default and meaning.
std::string help_text(std::span<const setting_spec> specs, const std::string& usage);

}  // namespace harness::core
