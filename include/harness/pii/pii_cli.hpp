// `mcp-harness pii ...`: lets users try the censor (and their own patterns)
// on text from stdin, with the same configuration as the server.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "harness/core/settings.hpp"

namespace harness::pii {

// args are what follows "pii" on the command line: `tokenize [--json]` or
// `--help`. Prints the tokenized stdin, or with --json
// {"text": ..., "detections": [{"kind", "start", "end", "token"}]} (byte
// offsets into the input; invalid UTF-8 in "text" shows as U+FFFD). Returns
// the exit code: 0 done, 1 configuration error, 2 usage error.
int run_pii_cli(const std::vector<std::string>& args, const core::settings& settings, std::istream& in,
                std::ostream& out, std::ostream& err);

}  // namespace harness::pii
