// Test-only executable: `pii_cli_tool tokenize [--json]` with settings from
// the process environment, exactly as `mcp-harness pii ...` will resolve them.
#include <iostream>

#include "harness/pii/pii_cli.hpp"
#include "harness/pii/pii_config.hpp"

int main(int argc, char** argv) {
  auto specs = harness::pii::pii_setting_specs();
  harness::core::setting_sources sources;
  sources.env = harness::core::environment_of(specs);
  auto settings = harness::core::settings::resolve(specs, sources);
  if (!settings) {
    std::cerr << "error: " << settings.error().describe() << "\n";
    return 1;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  return harness::pii::run_pii_cli(args, *settings, std::cin, std::cout, std::cerr);
}
