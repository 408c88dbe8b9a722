// The dashboard's files (ui/), built into the binary by cmake/EmbedFiles.cmake.
#pragma once

#include <span>
#include <string_view>

namespace harness::http {

struct ui_asset {
  std::string_view path;  // relative to ui/, e.g. "index.html", "js/app.js"
  std::string_view body;
};

// Every file of ui/ as it was when the binary was built, sorted by path.
std::span<const ui_asset> embedded_ui_assets();

}  // namespace harness::http
