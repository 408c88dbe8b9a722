// WWW-Authenticate (RFC 9110 section 11.6.1) as OAuth reads it: the challenges
// a 401 or 403 carries, and the parameters the MCP authorization spec uses
// (resource_metadata, scope, error).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::mcp {

struct auth_challenge {
  std::string scheme;                         // lower case ("bearer")
  std::map<std::string, std::string> params;  // names lower case, quoted values unquoted
  std::string token68;                        // a challenge's bare token68, if it has one

  std::optional<std::string> param(const std::string& name) const;
};

// Every challenge in the header values, in order. Malformed parts are
// skipped, never fatal: a server's header is untrusted input.
std::vector<auth_challenge> parse_www_authenticate(const std::vector<std::string>& values);

// The first Bearer challenge, if any.
std::optional<auth_challenge> bearer_challenge(const std::vector<auth_challenge>& challenges);

// Space-separated scopes as a list (empty entries dropped), and back.
std::vector<std::string> split_scopes(std::string_view scopes);
std::string join_scopes(const std::vector<std::string>& scopes);

}  // namespace harness::mcp
