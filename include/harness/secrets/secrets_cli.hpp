// `mcp-harness secrets ...`: a user's secrets in the server's store.
//   secrets set --user ID NAME      the value is read from standard input
//                                   (never from the command line, which other
//                                   users of the host can see); one trailing
//                                   newline is dropped
//   secrets list --user ID          names and when each was set, never a value
//   secrets delete --user ID NAME
// Uses the server's settings: STORE_PATH or STORE_URL, and the vault key.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/core/clock.hpp"
#include "harness/core/settings.hpp"

namespace harness::secrets {

// args are what follows "secrets". Returns the exit code: 0 done, 1 when the
// store or the key cannot be used, 2 on a usage error (one line on `err`).
int run_secrets_cli(const std::vector<std::string>& args, const core::settings& settings, std::istream& in,
                    std::ostream& out, std::ostream& err, core::clock& clock);

}  // namespace harness::secrets
