#include "oauth_token_endpoint.hpp"
#include "harness/core/json_parse.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include <jwt.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "harness/core/base64.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/net/url.hpp"
#include "oauth_challenge.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr auto endpoint_timeout = std::chrono::seconds(30);
constexpr std::size_t max_answer_bytes = 1024 * 1024;

std::string base64url(std::string_view bytes) {
  std::string out = core::base64_encode(bytes);
  for (auto& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!out.empty() && out.back() == '=') out.pop_back();
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

error endpoint_error(const std::string& what, const std::string& url, const std::string& detail) {
  return make_error(mcp::errc::authorization_failed, what + " at " + net::printable_url(url) + " failed: " + detail,
                    "check the server's oauth settings in the MCP config (client id, secret, scopes)");
}

// The OAuth `error` of an answer, if it has one.
std::string oauth_error_code(const net::response& answer) {
  auto doc = core::parse_json(answer.body);
  return doc.is_object() && doc.contains("error") && doc["error"].is_string() ? doc["error"].get<std::string>() : "";
}

// A string member, or empty (a hostile server's types are not trusted).
std::string text_of(const json& doc, const char* name) {
  return doc.contains(name) && doc[name].is_string() ? doc[name].get<std::string>() : std::string();
}

// The server's answer as `error: description`, without echoing anything else it sent.
std::string oauth_error_of(const net::response& answer) {
  auto doc = core::parse_json(answer.body);
  std::string out = "HTTP " + std::to_string(answer.status);
  if (doc.is_object() && doc.contains("error") && doc["error"].is_string()) {
    out += ", " + doc["error"].get<std::string>();
    if (doc.contains("error_description") && doc["error_description"].is_string()) {
      std::string description = doc["error_description"].get<std::string>().substr(0, 300);
      out += " (" + description + ")";
    }
  }
  return out;
}

// "Basic base64(id:secret)", each part form-encoded first (RFC 6749 section 2.3.1).
std::string basic_credentials(const std::string& id, const std::string& secret) {
  return "Basic " + core::base64_encode(net::url_escape(id) + ":" + net::url_escape(secret));
}

// A POST of `body` to an authorization server's endpoint.
net::request endpoint_request(const std::string& url, const char* content_type, std::string body = {}) {
  net::request r;
  r.method = "POST";
  r.url = url;
  r.timeout = endpoint_timeout;
  r.max_response_bytes = max_answer_bytes;
  r.headers = {{"Content-Type", content_type}, {"Accept", "application/json"}};
  r.body = std::move(body);
  return r;
}

// Sends it; the answer's JSON object when the status is 200 (or 201 for a
// registration), else the endpoint's error named after `what`.
// (`what` is a C string: a std::string temporary in a co_await expression is
// destroyed twice by GCC 12.)
asio::awaitable<result<json>> answer_of(net::http_client& http, net::request r, const char* what) {
  const std::string url = r.url;
  auto answer = co_await http.fetch(std::move(r));
  if (!answer) co_return endpoint_error(what, url, answer.error().message);
  if (answer->status != 200 && answer->status != 201) {
    auto e = endpoint_error(what, url, oauth_error_of(*answer));
    const auto code = oauth_error_code(*answer);
    if (code == "invalid_grant" || code == "invalid_client" || code == "unauthorized_client") {
      e.code = mcp::errc::grant_refused;
    }
    co_return e;
  }
  auto doc = core::parse_json(answer->body);
  if (!doc.is_object()) co_return endpoint_error(what, url, "the answer is not a JSON object");
  co_return doc;
}

// The JWS algorithm for a key: the configured one, else ES256 for EC and RS256 for RSA keys.
result<jwt_alg_t> signing_algorithm(const std::string& configured, const std::string& pem) {
  std::string name = configured;
  if (name.empty()) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
    if (!key) return make_error(mcp::errc::authorization_failed, "the oauth private key is not a PEM private key");
    name = EVP_PKEY_base_id(key.get()) == EVP_PKEY_EC ? "ES256" : "RS256";
  }
  const jwt_alg_t alg = jwt_str_alg(name.c_str());
  if (alg == JWT_ALG_INVAL || alg == JWT_ALG_NONE || alg == JWT_ALG_HS256 || alg == JWT_ALG_HS384 ||
      alg == JWT_ALG_HS512) {
    return make_error(mcp::errc::authorization_failed, "signingAlgorithm " + name + " cannot sign a client assertion",
                      "use ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384 or PS512");
  }
  return alg;
}

// RFC 7523 client assertion: iss = sub = client id, aud = the issuer, short-lived, single use.
result<std::string> client_assertion(const client_identity& client, const authorization_server_metadata& server,
                                     const core::clock& clock) {
  auto alg = signing_algorithm(client.signing_algorithm, client.private_key_pem);
  if (!alg) return alg.error();
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) return make_error(mcp::errc::authorization_failed, "cannot make a JWT");
  std::unique_ptr<jwt_t, decltype(&jwt_free)> token(raw, jwt_free);
  const long now = static_cast<long>(clock.epoch_ms() / 1000);
  const std::string jti = random_token();
  bool ok = jwt_add_grant(token.get(), "iss", client.client_id.c_str()) == 0 &&
            jwt_add_grant(token.get(), "sub", client.client_id.c_str()) == 0 &&
            jwt_add_grant(token.get(), "aud", server.issuer.c_str()) == 0 &&
            jwt_add_grant(token.get(), "jti", jti.c_str()) == 0 && jwt_add_grant_int(token.get(), "iat", now) == 0 &&
            jwt_add_grant_int(token.get(), "exp", now + 300) == 0 &&
            jwt_set_alg(token.get(), *alg, reinterpret_cast<const unsigned char*>(client.private_key_pem.data()),
                        static_cast<int>(client.private_key_pem.size())) == 0;
  if (!ok) {
    return make_error(mcp::errc::authorization_failed, "the oauth private key cannot sign a client assertion",
                      "check that privateKey is a PEM private key matching signingAlgorithm");
  }
  char* encoded = jwt_encode_str(token.get());
  if (!encoded) return make_error(mcp::errc::authorization_failed, "signing the client assertion failed");
  std::string out(encoded);
  free(encoded);  // libjwt 1.10 allocates it with malloc
  return out;
}

}  // namespace

json client_identity::to_json() const {
  json out = {{"clientId", client_id}, {"authMethod", auth_method}, {"source", source}, {"redirectUri", redirect_uri}};
  if (!client_secret.empty()) out["clientSecret"] = client_secret;
  return out;
}

client_identity client_identity::from_json(const json& j) {
  client_identity out;
  if (!j.is_object()) return out;
  out.client_id = text_of(j, "clientId");
  out.client_secret = text_of(j, "clientSecret");
  out.auth_method = text_of(j, "authMethod");
  out.source = text_of(j, "source");
  out.redirect_uri = text_of(j, "redirectUri");
  return out;
}

namespace {

std::int64_t epoch_ms(core::system_time t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::optional<core::system_time> time_of(const json& j, const char* name) {
  if (!j.contains(name) || !j[name].is_number_integer()) return std::nullopt;
  return core::system_time(std::chrono::milliseconds(j[name].get<std::int64_t>()));
}

}  // namespace

json token_set::to_json() const {
  json out = {
      {"accessToken", access_token}, {"scopes", scopes}, {"obtainedAt", epoch_ms(obtained_at)}, {"issuer", issuer}};
  if (!refresh_token.empty()) out["refreshToken"] = refresh_token;
  if (expires_at) out["expiresAt"] = epoch_ms(*expires_at);
  return out;
}

token_set token_set::from_json(const json& j) {
  token_set out;
  if (!j.is_object()) return out;
  out.access_token = text_of(j, "accessToken");
  out.refresh_token = text_of(j, "refreshToken");
  out.issuer = text_of(j, "issuer");
  if (j.contains("scopes") && j["scopes"].is_array()) {
    for (const auto& s : j["scopes"]) {
      if (s.is_string()) out.scopes.push_back(s.get<std::string>());
    }
  }
  out.expires_at = time_of(j, "expiresAt");
  out.obtained_at = time_of(j, "obtainedAt").value_or(core::system_time{});
  return out;
}

std::chrono::seconds token_set::renew_ahead() const {
  constexpr std::chrono::seconds most{60};
  if (!expires_at || obtained_at == core::system_time{}) return most;
  auto half = std::chrono::duration_cast<std::chrono::seconds>(*expires_at - obtained_at) / 2;
  return std::clamp(half, std::chrono::seconds(1), most);
}

std::string random_token() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no random bytes for OAuth");
  return base64url(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

std::string pkce_challenge(const std::string& verifier) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
  return base64url(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string choose_auth_method(const std::string& configured, const std::string& client_secret,
                               const std::string& private_key, const authorization_server_metadata& server) {
  if (!configured.empty()) return configured;
  if (!private_key.empty()) return "private_key_jwt";
  if (client_secret.empty()) return "none";
  const auto& supported = server.token_endpoint_auth_methods_supported;
  if (contains(supported, "client_secret_basic")) return "client_secret_basic";
  if (contains(supported, "client_secret_post")) return "client_secret_post";
  return "client_secret_basic";
}

status authenticate_client(const client_identity& client, const authorization_server_metadata& server,
                           net::request& request, form_fields& fields, const core::clock& clock) {
  if (client.auth_method == "client_secret_basic") {
    request.headers.emplace_back("Authorization", basic_credentials(client.client_id, client.client_secret));
  } else if (client.auth_method == "client_secret_post") {
    fields.emplace_back("client_id", client.client_id);
    fields.emplace_back("client_secret", client.client_secret);
  } else if (client.auth_method == "private_key_jwt") {
    auto assertion = client_assertion(client, server, clock);
    if (!assertion) return assertion.error();
    fields.emplace_back("client_id", client.client_id);
    fields.emplace_back("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    fields.emplace_back("client_assertion", std::move(*assertion));
  } else {
    fields.emplace_back("client_id", client.client_id);
  }
  return {};
}

asio::awaitable<result<token_set>> request_tokens(net::http_client& http, const authorization_server_metadata& server,
                                                  const client_identity& client, form_fields fields,
                                                  const std::vector<std::string>& requested_scopes,
                                                  const core::clock& clock) {
  auto r = endpoint_request(server.token_endpoint, "application/x-www-form-urlencoded");
  if (auto ok = authenticate_client(client, server, r, fields, clock); !ok) co_return ok.error();
  r.body = net::form_encode(fields);
  auto answer = co_await answer_of(http, std::move(r), "the token request");
  if (!answer) co_return answer.error();
  const json& doc = *answer;
  if (!doc.contains("access_token") || !doc["access_token"].is_string() ||
      doc["access_token"].get<std::string>().empty()) {
    co_return endpoint_error("the token request", server.token_endpoint, "the answer has no access_token");
  }
  std::string type = doc.contains("token_type") ? text_of(doc, "token_type") : std::string("Bearer");
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  if (type != "bearer") {
    co_return endpoint_error("the token request", server.token_endpoint, "the token is not a Bearer token");
  }
  token_set out;
  out.access_token = doc["access_token"].get<std::string>();
  if (doc.contains("refresh_token") && doc["refresh_token"].is_string()) {
    out.refresh_token = doc["refresh_token"].get<std::string>();
  }
  out.scopes = doc.contains("scope") && doc["scope"].is_string() ? split_scopes(doc["scope"].get<std::string>())
                                                                 : requested_scopes;
  out.obtained_at = clock.system_now();
  if (doc.contains("expires_in") && doc["expires_in"].is_number() && doc["expires_in"].get<double>() > 0) {
    // At most ten years: a hostile value must not overflow the clock.
    const double seconds = std::min(doc["expires_in"].get<double>(), 10.0 * 365 * 24 * 3600);
    out.expires_at = out.obtained_at + std::chrono::seconds(static_cast<std::int64_t>(seconds));
  }
  co_return out;
}

asio::awaitable<status> revoke_token(net::http_client& http, const authorization_server_metadata& server,
                                     const client_identity& client, std::string token, const char* hint,
                                     const core::clock& clock) {
  form_fields fields = {{"token", std::move(token)}, {"token_type_hint", hint}};
  auto r = endpoint_request(server.revocation_endpoint, "application/x-www-form-urlencoded");
  if (auto ok = authenticate_client(client, server, r, fields, clock); !ok) co_return ok.error();
  r.body = net::form_encode(fields);
  const std::string url = r.url;
  auto answer = co_await http.fetch(std::move(r));
  if (!answer) co_return endpoint_error("the revocation", url, answer.error().message);
  // RFC 7009 section 2.2: 200 whether or not the token was valid; the body is not read.
  if (answer->status != 200) co_return endpoint_error("the revocation", url, oauth_error_of(*answer));
  co_return status{};
}

asio::awaitable<result<std::string>> exchange_id_token(net::http_client& http, const identity_provider_config& idp,
                                                       const std::string& audience, const std::string& resource,
                                                       const std::vector<std::string>& scopes) {
  form_fields fields = {{"grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"},
                        {"requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"},
                        {"subject_token", idp.id_token},
                        {"subject_token_type", "urn:ietf:params:oauth:token-type:id_token"},
                        {"audience", audience}};
  if (!resource.empty()) fields.emplace_back("resource", resource);
  if (!scopes.empty()) fields.emplace_back("scope", join_scopes(scopes));
  auto r = endpoint_request(idp.token_endpoint, "application/x-www-form-urlencoded");
  if (!idp.client_secret.empty()) {
    r.headers.emplace_back("Authorization", basic_credentials(idp.client_id, idp.client_secret));
  } else if (!idp.client_id.empty()) {
    fields.emplace_back("client_id", idp.client_id);
  }
  r.body = net::form_encode(fields);
  auto answer = co_await answer_of(http, std::move(r), "the identity token exchange");
  if (!answer) co_return answer.error();
  const json& doc = *answer;
  if (!doc.contains("access_token") || !doc["access_token"].is_string() ||
      text_of(doc, "issued_token_type") != "urn:ietf:params:oauth:token-type:id-jag") {
    co_return endpoint_error("the identity token exchange", idp.token_endpoint, "the answer has no identity assertion");
  }
  co_return doc["access_token"].get<std::string>();
}

asio::awaitable<result<client_identity>> register_client(
    net::http_client& http, const authorization_server_metadata& server, const std::string& client_name,
    const std::string& redirect_uri, const std::string& auth_method, const std::vector<std::string>& scopes) {
  json body = {{"client_name", client_name},
               {"redirect_uris", {redirect_uri}},
               {"grant_types", {"authorization_code", "refresh_token"}},
               {"response_types", {"code"}},
               {"token_endpoint_auth_method", auth_method}};
  if (!scopes.empty()) body["scope"] = join_scopes(scopes);
  auto request = endpoint_request(server.registration_endpoint, "application/json", body.dump());
  auto answer = co_await answer_of(http, std::move(request), "client registration");
  if (!answer) co_return answer.error();
  const json& doc = *answer;
  if (!doc.contains("client_id") || !doc["client_id"].is_string()) {
    co_return endpoint_error("client registration", server.registration_endpoint, "the answer has no client_id");
  }
  client_identity out;
  out.client_id = doc["client_id"].get<std::string>();
  if (doc.contains("client_secret") && doc["client_secret"].is_string()) {
    out.client_secret = doc["client_secret"].get<std::string>();
  }
  out.auth_method =
      doc.contains("token_endpoint_auth_method") ? text_of(doc, "token_endpoint_auth_method") : auth_method;
  if (out.auth_method.empty()) out.auth_method = auth_method;
  out.redirect_uri = redirect_uri;
  if (out.client_secret.empty() && out.auth_method != "none") out.auth_method = "none";
  out.source = "registered";
  co_return out;
}

}  // namespace harness::mcp
