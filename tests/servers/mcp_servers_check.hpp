// A strict, test-local check of one mcpServers document (the format of
// design.md section 7), used to prove that every snippet in
// servers/catalog.json and the category READMEs loads as a config. The real
// loader (src/mcp) is written in parallel; at merge the catalog test can switch
// to it and keep these rules as the catalog's own stricter contract.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace harness::servers_test {

// The names NAME of every ${NAME} in text, in order of appearance. A "${" with
// no closing brace or an empty or malformed name ends up in `malformed`
// (one entry per bad reference) when that pointer is not null.
std::vector<std::string> referenced_vars(const std::string& text, std::vector<std::string>* malformed = nullptr);

// Problems with `doc` as an mcpServers config holding exactly one server, one
// sentence each; empty when it is valid. Rules:
// - the top level is an object whose only key is "mcpServers", an object with
//   exactly one server;
// - a stdio server has exactly command (non-empty string), args (array of
//   strings) and env (object of strings keyed by valid variable names);
// - an http server has exactly url (http:// or https://) and headers (object
//   of strings);
// - ${VAR} may appear only in env and header values (the client expands
//   nothing else), and each VAR must be in `declared_env`.
std::vector<std::string> check_mcp_servers_config(const nlohmann::json& doc, const std::set<std::string>& declared_env);

}  // namespace harness::servers_test
