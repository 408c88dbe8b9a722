#include "oauth_metadata.hpp"

#include "harness/mcp/errors.hpp"

namespace harness::mcp {
namespace {

using nlohmann::json;

error bad_metadata(const std::string& url, const std::string& what) {
  return make_error(mcp::errc::authorization_failed, "the OAuth metadata at " + net::printable_url(url) + " " + what,
                    "the server's authorization set-up is broken; tell its operator");
}

std::optional<std::vector<std::string>> string_list(const json& doc, const char* name) {
  if (!doc.contains(name) || !doc[name].is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& item : doc[name]) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string string_field(const json& doc, const char* name) {
  return doc.contains(name) && doc[name].is_string() ? doc[name].get<std::string>() : std::string();
}

std::string without_trailing_slash(std::string text) {
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace

std::vector<std::string> protected_resource_metadata_urls(const net::url_parts& server,
                                                          const std::optional<std::string>& from_challenge) {
  if (from_challenge && !from_challenge->empty()) return {*from_challenge};
  std::vector<std::string> out;
  if (server.path != "/") out.push_back(net::well_known_url(server, "oauth-protected-resource", true));
  out.push_back(net::well_known_url(server, "oauth-protected-resource", false));
  return out;
}

std::vector<std::string> authorization_server_metadata_urls(const net::url_parts& issuer) {
  if (issuer.path == "/" || issuer.path.empty()) {
    return {net::well_known_url(issuer, "oauth-authorization-server", false),
            net::well_known_url(issuer, "openid-configuration", false)};
  }
  return {net::well_known_url(issuer, "oauth-authorization-server", true),
          net::well_known_url(issuer, "openid-configuration", true),
          net::origin_of(issuer) + without_trailing_slash(issuer.path) + "/.well-known/openid-configuration"};
}

result<protected_resource_metadata> parse_protected_resource_metadata(const json& doc, const std::string& url) {
  if (!doc.is_object()) return bad_metadata(url, "is not a JSON object");
  protected_resource_metadata out;
  out.url = url;
  out.resource = string_field(doc, "resource");
  if (out.resource.empty()) return bad_metadata(url, "has no \"resource\"");
  out.authorization_servers = string_list(doc, "authorization_servers").value_or(std::vector<std::string>{});
  out.scopes_supported = string_list(doc, "scopes_supported");
  return out;
}

result<authorization_server_metadata> parse_authorization_server_metadata(const json& doc, const std::string& url) {
  if (!doc.is_object()) return bad_metadata(url, "is not a JSON object");
  authorization_server_metadata out;
  out.issuer = string_field(doc, "issuer");
  out.authorization_endpoint = string_field(doc, "authorization_endpoint");
  out.token_endpoint = string_field(doc, "token_endpoint");
  out.registration_endpoint = string_field(doc, "registration_endpoint");
  out.revocation_endpoint = string_field(doc, "revocation_endpoint");
  if (out.issuer.empty()) return bad_metadata(url, "has no \"issuer\"");
  if (out.token_endpoint.empty()) return bad_metadata(url, "has no \"token_endpoint\"");
  out.scopes_supported = string_list(doc, "scopes_supported");
  out.code_challenge_methods_supported = string_list(doc, "code_challenge_methods_supported");
  out.token_endpoint_auth_methods_supported = string_list(doc, "token_endpoint_auth_methods_supported")
                                                  .value_or(std::vector<std::string>{"client_secret_basic"});
  out.grant_types_supported =
      string_list(doc, "grant_types_supported").value_or(std::vector<std::string>{"authorization_code", "implicit"});
  out.client_id_metadata_document_supported =
      doc.contains("client_id_metadata_document_supported") && doc["client_id_metadata_document_supported"] == true;
  out.authorization_response_iss_parameter_supported = doc.contains("authorization_response_iss_parameter_supported") &&
                                                       doc["authorization_response_iss_parameter_supported"] == true;
  return out;
}

authorization_server_metadata fallback_authorization_server(const net::url_parts& server) {
  const std::string origin = net::origin_of(server);
  authorization_server_metadata out;
  out.issuer = origin;
  out.authorization_endpoint = origin + "/authorize";
  out.token_endpoint = origin + "/token";
  out.registration_endpoint = origin + "/register";
  out.code_challenge_methods_supported = std::vector<std::string>{"S256"};
  out.token_endpoint_auth_methods_supported = {"client_secret_basic", "client_secret_post", "none"};
  out.grant_types_supported = {"authorization_code", "refresh_token"};
  out.discovered = false;
  return out;
}

bool resource_covers(const std::string& resource, const net::url_parts& server) {
  auto parsed = net::parse_url(resource);
  if (!parsed) return false;
  if (net::origin_of(*parsed) != net::origin_of(server)) return false;
  const std::string prefix = without_trailing_slash(parsed->path);
  const std::string path = without_trailing_slash(server.path);
  if (prefix == "/" || prefix == path) return true;
  return path.rfind(prefix, 0) == 0 && path.size() > prefix.size() && path[prefix.size()] == '/';
}

bool acceptable_oauth_url(const std::string& url, const net::url_parts& server) {
  auto parsed = net::parse_url(url);
  if (!parsed) return false;
  return parsed->scheme == "https" || server.scheme == "http";
}

}  // namespace harness::mcp
