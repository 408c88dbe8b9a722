// `mcp-harness keys ...`: manage the API key file.
//   keys add --user ID [--user ID ...] [--admin] [--name LABEL]
//       makes a key, prints it once on stdout (one line), stores its SHA-256
//   keys list      id, label, role, users, created (never a key or a digest)
//   keys revoke ID removes the key; the server notices within a second
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/core/clock.hpp"
#include "harness/core/settings.hpp"

namespace harness::auth {

// args are what follows "keys". Reads API_KEYS_FILE from `settings`. Returns
// the exit code: 0 done, 2 on any error (one line on `err`). `clock` stamps
// the creation time of new keys.
int run_keys_cli(const std::vector<std::string>& args, const core::settings& settings, std::ostream& out,
                 std::ostream& err, core::clock& clock);

}  // namespace harness::auth
