// Reading the servers/ collection for the catalog tests: files under the
// source root, and the ```json blocks of its Markdown.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace harness::servers_test {

// The whole file at HARNESS_SOURCE_DIR/relative_path. Throws std::runtime_error
// naming the path when HARNESS_SOURCE_DIR is unset or the file cannot be read.
std::string read_source_file(const std::string& relative_path);

// servers/catalog.json, parsed. Throws as read_source_file, or
// nlohmann::json::parse_error on malformed JSON.
nlohmann::json load_catalog();

// For each level-2 heading of the form "## `name`" in markdown: the text of the
// first ```json fenced block that follows it (before the next level-2
// heading), or an empty string when that section has none.
std::map<std::string, std::string> json_blocks_by_server_heading(const std::string& markdown);

// The text from the line "## <title>" up to the next level-2 heading; empty
// when there is no such heading.
std::string markdown_section(const std::string& markdown, const std::string& title);

}  // namespace harness::servers_test
