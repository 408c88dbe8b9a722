// Test helpers: a private temporary folder per test, files written into it,
// and file_change values shaped like the ones the runtime reports.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/bridge/runtime_session.hpp"

namespace harness::skills::testing {

namespace fs = std::filesystem;

// A fresh folder named after the running test, removed afterwards.
class temp_folder {
 public:
  temp_folder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "-" + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    path_ = fs::temp_directory_path() / ("skills-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~temp_folder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline bridge::file_change write_change(std::string root, std::string path, std::string content) {
  bridge::file_change c;
  c.root = std::move(root);
  c.path = std::move(path);
  c.op = "write";
  c.size = content.size();
  c.content = std::move(content);
  return c;
}

inline bridge::file_change delete_change(std::string root, std::string path) {
  bridge::file_change c;
  c.root = std::move(root);
  c.path = std::move(path);
  c.op = "delete";
  return c;
}

inline std::string skill_md(const std::string& name, const std::string& description) {
  return "---\nname: " + name + "\ndescription: " + description + "\n---\n\nInstructions.\n";
}

}  // namespace harness::skills::testing
