#include "servers/catalog_files.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace harness::servers_test {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool is_level2_heading(const std::string& line) {
  return line.starts_with("## ");
}

}  // namespace

std::string read_source_file(const std::string& relative_path) {
  const char* root = std::getenv("HARNESS_SOURCE_DIR");
  if (root == nullptr || *root == '\0') {
    throw std::runtime_error("HARNESS_SOURCE_DIR is not set (ctest sets it; run the test through ctest)");
  }
  const std::string path = std::string(root) + "/" + relative_path;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json load_catalog() {
  return nlohmann::json::parse(read_source_file("servers/catalog.json"));
}

std::map<std::string, std::string> json_blocks_by_server_heading(const std::string& markdown) {
  std::map<std::string, std::string> blocks;
  const auto lines = split_lines(markdown);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (!line.starts_with("## `") || !line.ends_with("`") || line.size() < 6) continue;
    const std::string name = line.substr(4, line.size() - 5);
    std::string block;
    for (std::size_t j = i + 1; j < lines.size() && !is_level2_heading(lines[j]); ++j) {
      if (lines[j] != "```json") continue;
      for (std::size_t k = j + 1; k < lines.size() && lines[k] != "```"; ++k) block += lines[k] + "\n";
      break;
    }
    blocks[name] = block;
  }
  return blocks;
}

std::string markdown_section(const std::string& markdown, const std::string& title) {
  const auto lines = split_lines(markdown);
  std::string section;
  bool inside = false;
  for (const auto& line : lines) {
    if (is_level2_heading(line)) {
      if (inside) break;
      inside = line == "## " + title;
    }
    if (inside) section += line + "\n";
  }
  return section;
}

}  // namespace harness::servers_test
