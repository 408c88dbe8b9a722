// The contract of one entry of servers/catalog.json (documented in
// servers/README.md, "The catalog format"), checked field by field.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace harness::servers_test {

// Names listed in entry[field] ("required_env" or "optional_env"); empty when
// the field is missing or malformed (check_catalog_entry reports that).
std::set<std::string> env_names(const nlohmann::json& entry, const std::string& field);

// Problems with one catalog entry, one sentence each, prefixed with its name;
// empty when it is valid. Covers the fields, their types and allowed values,
// agreement between the entry and its config snippet (same command, args or
// url; key equal to name; every required variable referenced; no literal
// secret), and the snippet itself via check_mcp_servers_config.
std::vector<std::string> check_catalog_entry(const nlohmann::json& entry);

}  // namespace harness::servers_test
