// The documents OAuth discovery reads, and where to look for them: protected
// resource metadata (RFC 9728) and authorization server metadata (RFC 8414,
// or OpenID Connect Discovery), in the order the MCP authorization spec
// (2025-11-25) gives. Pure functions; discovery.cpp fetches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/net/url.hpp"

namespace harness::mcp {

struct protected_resource_metadata {
  std::string url;       // where it was read
  std::string resource;  // the resource identifier (RFC 8707's `resource` parameter)
  std::vector<std::string> authorization_servers;
  std::optional<std::vector<std::string>> scopes_supported;
};

struct authorization_server_metadata {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string registration_endpoint;  // empty: no dynamic client registration
  std::string revocation_endpoint;    // RFC 7009; empty: tokens cannot be revoked there
  std::optional<std::vector<std::string>> scopes_supported;
  std::optional<std::vector<std::string>> code_challenge_methods_supported;
  std::vector<std::string> token_endpoint_auth_methods_supported;  // RFC 8414's default when absent
  std::vector<std::string> grant_types_supported;                  // RFC 8414's default when absent
  bool client_id_metadata_document_supported = false;
  // RFC 9207: the server names itself (`iss`) in every authorization response,
  // so a response without it is refused (it may come from another server).
  bool authorization_response_iss_parameter_supported = false;
  // False for the 2025-03-26 fallback: no metadata, default endpoints at the server's origin.
  bool discovered = true;
};

// Where protected resource metadata may be, in order: the WWW-Authenticate
// challenge's resource_metadata (alone, when given), else the path-based
// well-known URL, then the root one.
std::vector<std::string> protected_resource_metadata_urls(const net::url_parts& server,
                                                          const std::optional<std::string>& from_challenge);

// Where an authorization server's metadata may be, in order: for an issuer
// with a path, OAuth with the path inserted, OpenID Connect with the path
// inserted, OpenID Connect with the path appended; for one without, OAuth
// then OpenID Connect at the root.
std::vector<std::string> authorization_server_metadata_urls(const net::url_parts& issuer);

// Errors: mcp_authorization_failed naming the URL and what is missing or wrong.
result<protected_resource_metadata> parse_protected_resource_metadata(const nlohmann::json& doc,
                                                                      const std::string& url);
result<authorization_server_metadata> parse_authorization_server_metadata(const nlohmann::json& doc,
                                                                          const std::string& url);

// The 2025-03-26 fallback for a server without metadata: /authorize,
// /token and /register at the server's origin.
authorization_server_metadata fallback_authorization_server(const net::url_parts& server);

// Whether metadata naming `resource` may speak for the server at `server`:
// the same origin, and a path that is the server's or a parent of it
// (RFC 9728 section 3.3: a client must not use metadata for another resource).
bool resource_covers(const std::string& resource, const net::url_parts& server);

// Whether an OAuth URL a server handed us may be used: https, or http when
// the MCP server itself is plain http (OAuth never lowers the server's own
// transport security).
bool acceptable_oauth_url(const std::string& url, const net::url_parts& server);

}  // namespace harness::mcp
