#include "harness/secrets/secrets_cli.hpp"

#include <unistd.h>

#include <termios.h>

#include <iostream>
#include <optional>

#include "harness/core/ids.hpp"
#include "harness/pii/vault_seal.hpp"
#include "harness/secrets/secret_store.hpp"
#include "harness/store/store_config.hpp"
#include "harness/store/task_store.hpp"

namespace harness::secrets {
namespace {

constexpr const char* usage =
    "usage: mcp-harness secrets set --user ID NAME     (the value is read from standard input)\n"
    "       mcp-harness secrets list --user ID\n"
    "       mcp-harness secrets delete --user ID NAME\n"
    "  A user-scoped MCP server names a secret as ${secret:NAME} in its env, headers or args.\n"
    "  Uses STORE_PATH or STORE_URL and the vault key (VAULT_KEY or VAULT_KEY_FILE) like the server.\n";

struct command {
  std::string verb;
  std::string user;
  std::string name;
};

std::optional<command> parse(const std::vector<std::string>& args, std::ostream& err) {
  command out;
  out.verb = args[0];
  std::vector<std::string> positional;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--user" && i + 1 < args.size()) {
      out.user = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      err << "error: unknown option '" << args[i] << "'\n" << usage;
      return std::nullopt;
    } else {
      positional.push_back(args[i]);
    }
  }
  const std::size_t wanted = out.verb == "list" ? 0 : 1;
  if (out.verb != "set" && out.verb != "list" && out.verb != "delete") {
    err << "error: unknown secrets command '" << out.verb << "'\n" << usage;
    return std::nullopt;
  }
  if (out.user.empty() || positional.size() != wanted) {
    err << "error: secrets " << out.verb << " needs --user ID" << (wanted ? " and a NAME" : "") << "\n" << usage;
    return std::nullopt;
  }
  if (!core::is_safe_id(out.user, 64)) {
    err << "error: invalid --user: user ids are 1-64 characters of letters, digits, '.', '_' and '-'\n";
    return std::nullopt;
  }
  if (wanted) out.name = positional[0];
  if (!out.name.empty() && !valid_secret_name(out.name)) {
    err << "error: " << check_secret_name(out.name).error().describe() << "\n";
    return std::nullopt;
  }
  return out;
}

// The largest value (16384 bytes), its line end, and one byte more to tell a longer one.
constexpr std::size_t max_input = 16384 + 3;

// Standard input without echo when it is a terminal.
std::string read_value(std::istream& in, std::ostream& err) {
  const bool terminal = &in == &std::cin && ::isatty(STDIN_FILENO) == 1;
  termios saved{};
  if (terminal && ::tcgetattr(STDIN_FILENO, &saved) == 0) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    err << "value (not shown; end with Enter): " << std::flush;
    std::string line;
    std::getline(in, line);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    err << "\n";
    return line;
  }
  // At most a little over the largest value: a huge input is refused by
  // check_secret_value without being held whole.
  std::string value(max_input, '\0');
  in.read(value.data(), static_cast<std::streamsize>(value.size()));
  value.resize(static_cast<std::size_t>(in.gcount()));
  if (!value.empty() && value.back() == '\n') value.pop_back();
  if (!value.empty() && value.back() == '\r') value.pop_back();
  return value;
}

int fail(std::ostream& err, const error& e, int code = 1) {
  err << "error: " << e.describe() << "\n";
  return code;
}

}  // namespace

int run_secrets_cli(const std::vector<std::string>& args, const core::settings& settings, std::istream& in,
                    std::ostream& out, std::ostream& err, core::clock& clock) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? err : out) << usage;
    return args.empty() ? 2 : 0;
  }
  auto cmd = parse(args, err);
  if (!cmd) return 2;
  std::string value;
  if (cmd->verb == "set") {
    value = read_value(in, err);
    if (auto ok = check_secret_value(value); !ok) return fail(err, ok.error(), 2);
  }
  auto config = store::load_store_config(settings);
  if (!config) return fail(err, config.error());
  auto sealer = pii::load_vault_sealer(settings);
  if (!sealer) return fail(err, sealer.error());
  auto db = store::open_blocking_store(*config);
  if (!db) return fail(err, db.error());
  auto& store = **db;
  if (cmd->verb == "set") {
    auto sealed = seal_secret(*sealer, cmd->user, cmd->name, value);
    if (auto ok = store.put_credential({cmd->user, "secret", cmd->name, sealed, clock.epoch_ms()}); !ok) {
      return fail(err, ok.error());
    }
    out << "secret " << cmd->name << " set for " << cmd->user
        << " (a running instance of the user's servers keeps the old value until it stops)\n";
    return 0;
  }
  if (cmd->verb == "delete") {
    auto removed = store.delete_credential(cmd->user, "secret", cmd->name);
    if (!removed) return fail(err, removed.error());
    if (!*removed) {
      err << "error: " << cmd->user << " has no secret named " << cmd->name << "\n";
      return 1;
    }
    out << "secret " << cmd->name << " deleted for " << cmd->user << "\n";
    return 0;
  }
  auto rows = store.list_credentials(cmd->user, "secret");
  if (!rows) return fail(err, rows.error());
  for (const auto& row : *rows) out << row.name << "\t" << row.updated_ms << "\n";
  return 0;
}

}  // namespace harness::secrets
