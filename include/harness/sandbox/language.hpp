// The languages code can be written in, and the runtime that runs each in a
// sandbox. Both runtimes are in the one sandbox image and speak the same
// NDJSON protocol (docs/architecture/runtime-protocol.md); only the program a
// container starts differs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::sandbox {

enum class language { javascript, python };

// "javascript" or "python" (as requests and settings spell them); nullopt for anything else.
std::optional<language> parse_language(std::string_view name);
std::string_view language_name(language lang);
// The command a container of that language runs.
std::vector<std::string> runtime_command(language lang);

}  // namespace harness::sandbox
