#include "harness/sandbox/language.hpp"

namespace harness::sandbox {

std::optional<language> parse_language(std::string_view name) {
  if (name == "javascript") return language::javascript;
  if (name == "python") return language::python;
  return std::nullopt;
}

std::string_view language_name(language lang) {
  return lang == language::python ? "python" : "javascript";
}

std::vector<std::string> runtime_command(language lang) {
  // Named here as well as in the image (the JavaScript one is its entrypoint),
  // so an older image still starts the right program. -I: Python ignores the
  // environment's PYTHON* variables and the user's site folder; -u: its
  // standard streams are unbuffered, so a frame is never held back.
  if (lang == language::python) return {"python3", "-I", "-u", "/opt/sandbox/runtime-python/runtime.py"};
  return {"node", "/opt/sandbox/runtime/runtime.js"};
}

}  // namespace harness::sandbox
