// The mcp-harness program: reads settings, wires the components together and
// runs the server or a command-line subcommand. main() only calls run().
#pragma once

namespace harness::app {

// Returns the process exit code: 0 on success or clean shutdown, 2 on a
// configuration error (after printing one line that names the problem).
int run(int argc, char** argv);

}  // namespace harness::app
