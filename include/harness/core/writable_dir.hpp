// Start-up check of a folder a setting names: it exists (created with its
// parents when missing) and files can be created in it. The error names the
// setting, so start-up fails with one line that says what to fix.
#pragma once

#include <filesystem>
#include <string_view>

#include "harness/core/error.hpp"

namespace harness::core {

// Error invalid_setting: "SKILLS_DIR: cannot create /x/y: Not a directory"
// or "...: /x/y is not writable: Read-only file system".
status ensure_writable_dir(const std::filesystem::path& dir, std::string_view setting);

}  // namespace harness::core
