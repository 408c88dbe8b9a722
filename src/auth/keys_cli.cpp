#include "harness/auth/keys_cli.hpp"
#include "harness/auth/errors.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/auth/api_key.hpp"
#include "harness/auth/auth_config.hpp"
#include "harness/auth/key_file.hpp"

namespace harness::auth {
namespace {

constexpr const char* usage =
    "usage: mcp-harness keys add --user ID [--user ID ...] [--admin] [--name LABEL]\n"
    "         make a key; it is printed once on stdout, only its SHA-256 is stored\n"
    "       mcp-harness keys list\n"
    "         id, label, role, users and creation time of every key (never a key)\n"
    "       mcp-harness keys revoke ID\n"
    "         remove a key; a running server stops accepting it within a second\n"
    "  The key file is API_KEYS_FILE (default data/api-keys.json), created with mode 600.\n";

int fail(std::ostream& err, const std::string& message) {
  err << "mcp-harness keys: " << message << "\n";
  return 2;
}

int fail(std::ostream& err, const error& e) {
  return fail(err, e.describe());
}

int add(const std::vector<std::string>& args, const std::filesystem::path& file, std::ostream& out, std::ostream& err,
        core::clock& clock) {
  key_record record;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--admin") {
      record.admin = true;
    } else if (arg == "--user" || arg == "--name") {
      if (i + 1 >= args.size()) return fail(err, arg + " needs a value");
      const std::string& value = args[++i];
      if (arg == "--name") {
        bool printable =
            std::all_of(value.begin(), value.end(), [](unsigned char c) { return c >= 0x20 && c != 0x7F; });
        if (value.size() > 100 || !printable) return fail(err, "--name must be at most 100 printable characters");
        record.label = value;
      } else if (!is_valid_user_id(value)) {
        return fail(err, fmt::format("invalid --user '{}': use 1-64 letters, digits, '.', '_' or '-'", value));
      } else if (std::find(record.users.begin(), record.users.end(), value) == record.users.end()) {
        record.users.push_back(value);
      }
    } else {
      return fail(err, fmt::format("unknown option '{}' for keys add (see mcp-harness keys --help)", arg));
    }
  }
  if (!record.admin && record.users.empty()) {
    return fail(err, "keys add needs --user ID (the user the key acts for) or --admin");
  }
  auto key = generate_api_key();
  if (!key) return fail(err, key.error());
  record.sha256 = digest_of(*key);
  record.created = format_utc(clock.system_now());
  status written = update_key_file(file, [&](key_set& set) -> status {
    // 48 random bits: a clash is rare, but the id must be unique in the file.
    for (int attempt = 0; attempt < 8; ++attempt) {
      auto id = generate_key_id();
      if (!id) return id.error();
      bool taken = std::any_of(set.keys.begin(), set.keys.end(), [&](const key_record& k) { return k.id == *id; });
      if (!taken) {
        record.id = *id;
        set.keys.push_back(record);
        return {};
      }
    }
    return make_error(errc::key_id_clash, "could not find a free key id", "try again");
  });
  if (!written) return fail(err, written.error());
  // stdout carries the key and nothing else, so `key=$(mcp-harness keys add ...)` works.
  out << *key << "\n";
  out.flush();
  err << fmt::format(
      "created {} ({}{}) in {}; the key above is shown only this once\n", record.id, record.admin ? "admin" : "user",
      record.users.empty() ? "" : " for " + fmt::format("{}", fmt::join(record.users, ",")), file.string());
  return 0;
}

int list(const std::vector<std::string>& args, const std::filesystem::path& file, std::ostream& out,
         std::ostream& err) {
  if (!args.empty()) return fail(err, fmt::format("unknown option '{}' for keys list", args.front()));
  auto loaded = read_key_file(file);
  if (!loaded) return fail(err, loaded.error());
  if (!loaded->warning.empty()) err << "mcp-harness keys: warning: " << loaded->warning << "\n";
  std::size_t label_width = 5;
  for (const auto& k : loaded->set.keys) label_width = std::max(label_width, k.label.size());
  out << fmt::format("{:<16}  {:<{}}  {:<5}  {:<20}  {}\n", "ID", "LABEL", label_width, "ROLE", "CREATED", "USERS");
  for (const auto& k : loaded->set.keys) {
    std::string users = k.users.empty() ? (k.admin ? "(any)" : "-") : fmt::format("{}", fmt::join(k.users, ","));
    out << fmt::format("{:<16}  {:<{}}  {:<5}  {:<20}  {}\n", k.id, k.label, label_width, k.admin ? "admin" : "user",
                       k.created, users);
  }
  return 0;
}

int revoke(const std::vector<std::string>& args, const std::filesystem::path& file, std::ostream& err) {
  if (args.size() != 1) return fail(err, "usage: mcp-harness keys revoke ID (the id `keys list` shows)");
  const std::string& id = args.front();
  status done = update_key_file(file, [&](key_set& set) -> status {
    auto it = std::find_if(set.keys.begin(), set.keys.end(), [&](const key_record& k) { return k.id == id; });
    if (it == set.keys.end()) {
      return make_error(errc::unknown_key, fmt::format("no key with id '{}' in {}", id, file.string()),
                        "see mcp-harness keys list");
    }
    set.keys.erase(it);
    return {};
  });
  if (!done) return fail(err, done.error());
  err << fmt::format("revoked {}\n", id);
  return 0;
}

}  // namespace

int run_keys_cli(const std::vector<std::string>& args, const core::settings& settings, std::ostream& out,
                 std::ostream& err, core::clock& clock) {
  if (args.empty()) {
    err << usage;
    return 2;
  }
  const std::string& command = args.front();
  if (command == "--help" || command == "-h" || command == "help") {
    out << usage;
    return 0;
  }
  auto config = load_auth_config(settings);
  if (!config) return fail(err, config.error());
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "add") return add(rest, config->keys_file, out, err, clock);
  if (command == "list") return list(rest, config->keys_file, out, err);
  if (command == "revoke") return revoke(rest, config->keys_file, err);
  return fail(err,
              fmt::format("unknown keys command '{}' (add, list or revoke; see mcp-harness keys --help)", command));
}

}  // namespace harness::auth
