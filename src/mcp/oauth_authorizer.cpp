#include "oauth_authorizer.hpp"
#include "harness/core/json_parse.hpp"

#include <openssl/crypto.h>

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/net/address_guard.hpp"
#include "harness/net/http_client.hpp"
#include "oauth_challenge.hpp"

namespace harness::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr auto metadata_timeout = std::chrono::seconds(15);
constexpr std::size_t max_metadata_bytes = 1024 * 1024;
// Authorizations asked for more scopes in a row before a 403 stands.
constexpr int max_step_ups = 2;

std::string iso_time(core::system_time t) {
  auto seconds = std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(t));
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string without_trailing_slash(std::string text) {
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

void add_unique(std::vector<std::string>& into, const std::vector<std::string>& more) {
  for (const auto& s : more) {
    if (std::find(into.begin(), into.end(), s) == into.end()) into.push_back(s);
  }
}

bool covers(const std::vector<std::string>& have, const std::vector<std::string>& need) {
  return std::all_of(need.begin(), need.end(),
                     [&](const std::string& s) { return std::find(have.begin(), have.end(), s) != have.end(); });
}

}  // namespace

error connect_your_account(const std::string& server, const std::string& url) {
  if (url.empty()) {
    return make_error(mcp::errc::needs_authorization, "MCP server " + server + " needs you to connect your account",
                      "POST /connections/" + server + " gives the link to open");
  }
  return make_error(
      mcp::errc::needs_authorization,
      "MCP server " + server + " needs you to connect your account: open " + url + " in a browser and approve access",
      "the call works once you have approved; GET /connections shows the state, POST /connections/" + server +
          " gives a new link");
}

class oauth_authorizer::flow_lock {
 public:
  static asio::awaitable<flow_lock> take(oauth_authorizer& owner) {
    while (owner.busy_) co_await owner.flow_done_.wait();
    owner.busy_ = true;
    co_return flow_lock(owner);
  }
  flow_lock(flow_lock&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)) {}
  flow_lock(const flow_lock&) = delete;
  ~flow_lock() {
    if (!owner_) return;
    owner_->busy_ = false;
    owner_->flow_done_.notify_all();
  }

 private:
  explicit flow_lock(oauth_authorizer& owner) : owner_(&owner) {}
  oauth_authorizer* owner_;
};

oauth_authorizer::oauth_authorizer(asio::any_io_executor executor, core::clock& clock, server_config server,
                                   std::shared_ptr<net::http_client> http, std::shared_ptr<oauth_token_store> store,
                                   oauth_options options)
    : executor_(executor),
      server_(std::move(server)),
      config_(server_.oauth.value_or(oauth_config{})),
      url_(net::parse_url(server_.url).value()),
      // Discovery, registration and token requests go to URLs the remote
      // server names: public addresses only, unless the operator allowed more.
      http_(server_.allow_private_network ? std::move(http) : net::public_only_client(std::move(http))),
      store_(std::move(store)),
      options_(std::move(options)),
      clock_(clock),
      flow_done_(executor, clock),
      refresh_timer_(clock.make_timer(executor)) {}

// --- what the transport asks ------------------------------------------------

asio::awaitable<std::optional<std::string>> oauth_authorizer::authorization() {
  auto self = shared_from_this();
  co_await ensure_loaded();
  auto due = [this] {
    return tokens_ && tokens_->expires_at && *tokens_->expires_at - clock_.system_now() <= tokens_->renew_ahead();
  };
  if (due()) {
    auto lock = co_await flow_lock::take(*this);
    // Another request may have renewed it while this one waited.
    if (due()) {
      if (!tokens_->refresh_token.empty()) {
        if (auto ok = co_await refresh(); !ok) {
          fail(ok.error());
          core::log_warn("mcp {}: {}", server_.name, ok.error().describe());
        }
      } else if (!grant_is_code() && server_metadata_) {
        if (auto ok = co_await token_grant(tokens_->scopes); !ok) {
          core::log_warn("mcp {}: {}", server_.name, ok.error().describe());
        }
      }
    }
  }
  if (!tokens_) co_return std::nullopt;
  co_return "Bearer " + tokens_->access_token;
}

std::optional<std::string> oauth_authorizer::current() const {
  if (!tokens_) return std::nullopt;
  return "Bearer " + tokens_->access_token;
}

asio::awaitable<status> oauth_authorizer::challenged(long code, std::vector<std::string> www_authenticate,
                                                     std::optional<std::string> sent) {
  auto self = shared_from_this();
  co_await ensure_loaded();
  auto lock = co_await flow_lock::take(*this);
  // A token that came while the refused request was out (an approval, a
  // refresh by another request): try that one before judging anything.
  if (tokens_ && sent != "Bearer " + tokens_->access_token) co_return status{};
  // ... or one another replica kept meanwhile (a user's approval there).
  if (auto kept = co_await newer_kept_tokens()) {
    adopt_tokens(std::move(*kept));
    co_return status{};
  }
  const auto challenges = parse_www_authenticate(www_authenticate);
  const auto bearer = bearer_challenge(challenges);
  const auto resource_metadata = bearer ? bearer->param("resource_metadata") : std::nullopt;
  const auto challenge_scope = bearer ? bearer->param("scope") : std::nullopt;
  const bool step_up = code == 403;
  if (step_up) {
    const std::string err = bearer ? bearer->param("error").value_or("") : "";
    if (err != "insufficient_scope") {
      co_return fail(make_error(
          mcp::errc::authorization_failed,
          "MCP server " + server_.name + " refused the token (HTTP 403" + (err.empty() ? "" : ", " + err) + ")",
          "check the account and scopes it was authorized with"));
    }
    const auto needed = split_scopes(challenge_scope.value_or(""));
    if (tokens_ && !needed.empty() && covers(tokens_->scopes, needed)) {
      co_return fail(make_error(mcp::errc::authorization_failed,
                                "MCP server " + server_.name +
                                    " refuses the token although it holds the scopes it asks for (" +
                                    join_scopes(needed) + ")",
                                "the server's scope requirements cannot be met; tell its operator"));
    }
  }
  if (auto found = co_await discover(resource_metadata); !found) co_return fail(found.error());
  if (!step_up && tokens_) {
    // 401 with a token: it expired or was revoked. A refresh token may still work.
    if (!tokens_->refresh_token.empty()) {
      if (auto refreshed = co_await refresh(); refreshed) co_return status{};
    }
    co_await forget_tokens();
  }
  const auto scopes = scopes_for(challenge_scope, step_up);
  if (!grant_is_code()) co_return co_await token_grant(scopes);
  if (auto identified = co_await ensure_client(true); !identified) co_return fail(identified.error());
  co_return ask_person(scopes, step_up);
}

json oauth_authorizer::describe() const {
  const auto grant = config_.grant;
  json out = {{"grant", grant == oauth_config::grant_type::authorization_code   ? "authorization_code"
                        : grant == oauth_config::grant_type::client_credentials ? "client_credentials"
                                                                                : "identity_assertion"}};
  if (pending_) {
    out["state"] = "needs_authorization";
    out["authorizationUrl"] = pending_->url;
    out["authorizationExpiresAt"] = iso_time(pending_->expires_at);
    out["requestedScopes"] = pending_->scopes;
  } else if (tokens_) {
    out["state"] = "authorized";
  } else if (!last_error_.empty()) {
    out["state"] = "failed";
  } else {
    out["state"] = "not_authorized";
  }
  if (tokens_) {
    out["scopes"] = tokens_->scopes;
    if (tokens_->expires_at) out["expiresAt"] = iso_time(*tokens_->expires_at);
    out["refreshable"] = !tokens_->refresh_token.empty();
  }
  if (server_metadata_) out["issuer"] = server_metadata_->issuer;
  if (client_) out["client"] = client_->source;
  if (!last_error_.empty()) out["error"] = last_error_;
  return out;
}

void oauth_authorizer::on_change(std::function<void()> listener) {
  listeners_.push_back(std::move(listener));
}

std::optional<core::steady_time> oauth_authorizer::pending_until() const {
  if (!pending_) return std::nullopt;
  return pending_->expires;
}

// --- the browser's return ----------------------------------------------------

bool oauth_authorizer::owns_state(const std::string& state) const {
  if (!pending_ || state.size() != pending_->state.size()) return false;
  return CRYPTO_memcmp(state.data(), pending_->state.data(), state.size()) == 0;
}

asio::awaitable<result<oauth_completion>> oauth_authorizer::complete(const std::map<std::string, std::string>& query) {
  auto self = shared_from_this();
  auto lock = co_await flow_lock::take(*this);
  auto field = [&](const char* name) {
    auto it = query.find(name);
    return it == query.end() ? std::string() : it->second;
  };
  if (!pending_ || !owns_state(field("state"))) {
    co_return make_error(mcp::errc::oauth_callback_invalid, "this authorization was already completed or replaced",
                         "open the authorizationUrl that GET /health shows now");
  }
  auto pending = std::move(*pending_);
  pending_.reset();
  if (clock_.steady_now() > pending.expires) {
    changed();
    co_return make_error(mcp::errc::oauth_callback_invalid, "the authorization for " + server_.name + " expired",
                         "open the new authorizationUrl that GET /health shows for it");
  }
  if (const auto err = field("error"); !err.empty()) {
    co_return fail(make_error(mcp::errc::authorization_failed,
                              "the authorization server said " + err +
                                  (field("error_description").empty() ? "" : " (" + field("error_description") + ")") +
                                  " for " + server_.name,
                              "try again from GET /health"));
  }
  // RFC 9207: when the server names itself, it must be the one we asked; one
  // that says it always does must have done so. Otherwise the response may
  // come from another authorization server (a mix-up attack), and its code
  // is not redeemed.
  const auto iss = field("iss");
  if (!iss.empty() && without_trailing_slash(iss) != without_trailing_slash(pending.server.issuer)) {
    co_return fail(make_error(mcp::errc::authorization_failed, "the authorization response for " + server_.name +
                                                                   " came from another issuer (" + iss + ")"));
  }
  if (iss.empty() && pending.server.authorization_response_iss_parameter_supported) {
    co_return fail(make_error(
        mcp::errc::authorization_failed,
        "the authorization response for " + server_.name + " does not name its issuer, which " + pending.server.issuer +
            " says it always does (RFC 9207): refused",
        "try again from GET /health; if it happens again, the response did not come from " + pending.server.issuer));
  }
  const auto code = field("code");
  if (code.empty()) {
    co_return make_error(mcp::errc::oauth_callback_invalid, "the authorization response has no code");
  }
  // Redeemed where it was asked for: the pending authorization's server, client and resource.
  form_fields fields = {{"grant_type", "authorization_code"},
                        {"code", code},
                        {"redirect_uri", pending.redirect_uri},
                        {"code_verifier", pending.verifier}};
  if (!pending.resource.empty()) fields.emplace_back("resource", pending.resource);
  auto tokens =
      co_await request_tokens(*http_, pending.server, pending.client, std::move(fields), pending.scopes, clock_);
  if (!tokens) co_return fail(tokens.error());
  co_await take_tokens(std::move(*tokens), pending.server.issuer, true);
  core::log_info("mcp {}: authorized ({})", server_.name, join_scopes(tokens_->scopes));
  co_return oauth_completion{server_.name, server_.user, tokens_->scopes};
}

// --- discovery ---------------------------------------------------------------

asio::awaitable<result<json>> oauth_authorizer::fetch_json(const std::string& url) {
  net::request r;
  r.url = url;
  r.timeout = metadata_timeout;
  r.max_response_bytes = max_metadata_bytes;
  r.headers = {{"Accept", "application/json"}};
  auto answer = co_await http_->fetch(std::move(r));
  if (!answer) {
    co_return make_error(mcp::errc::authorization_failed,
                         "OAuth discovery for " + server_.name + ": " + answer.error().message, answer.error().hint);
  }
  if (answer->status != 200) co_return json();  // not here: the caller tries the next place
  auto doc = core::parse_json(answer->body);
  if (doc.is_discarded() || !doc.is_object()) {
    co_return make_error(mcp::errc::authorization_failed, "OAuth discovery for " + server_.name + ": " +
                                                              net::printable_url(url) + " is not a JSON object");
  }
  co_return doc;
}

asio::awaitable<result<std::optional<oauth_authorizer::found_document>>> oauth_authorizer::first_document(
    std::vector<std::string> urls) {
  for (auto& url : urls) {
    auto doc = co_await fetch_json(url);
    if (!doc) co_return doc.error();
    if (doc->is_null()) continue;
    co_return found_document{std::move(url), std::move(*doc)};
  }
  co_return std::nullopt;
}

asio::awaitable<status> oauth_authorizer::discover(const std::optional<std::string>& resource_metadata) {
  if (server_metadata_ &&
      (!resource_metadata || (resource_metadata_ && resource_metadata_->url == *resource_metadata))) {
    co_return status{};
  }
  // Found into locals and kept only when the whole discovery worked.
  std::optional<protected_resource_metadata> resource;
  auto resource_urls = protected_resource_metadata_urls(url_, resource_metadata);
  // Checked before any is asked: they are the challenge's one URL or the server's own origin.
  for (const auto& url : resource_urls) {
    if (!acceptable_oauth_url(url, url_)) {
      co_return make_error(mcp::errc::authorization_failed, "MCP server " + server_.name + " points OAuth at " +
                                                                net::printable_url(url) + ", which is not https");
    }
  }
  auto resource_doc = co_await first_document(std::move(resource_urls));
  if (!resource_doc) co_return resource_doc.error();
  if (*resource_doc) {
    const std::string& url = (*resource_doc)->url;
    auto parsed = parse_protected_resource_metadata((*resource_doc)->doc, url);
    if (!parsed) co_return parsed.error();
    if (!resource_covers(parsed->resource, url_)) {
      co_return make_error(mcp::errc::authorization_failed,
                           "the OAuth metadata of " + server_.name + " is for another resource (" +
                               net::printable_url(parsed->resource) + "), not " + net::printable_url(server_.url),
                           "a token for it would be sent to the wrong place: the server is misconfigured or "
                           "hostile; no authorization was asked for");
    }
    if (parsed->authorization_servers.empty()) {
      co_return make_error(mcp::errc::authorization_failed,
                           "the OAuth metadata of " + server_.name + " names no authorization server");
    }
    resource = std::move(*parsed);
  }
  std::optional<authorization_server_metadata> found;
  if (resource) {
    const std::string issuer = resource->authorization_servers.front();
    auto issuer_url = net::parse_url(issuer);
    if (!issuer_url || !acceptable_oauth_url(issuer, url_)) {
      co_return make_error(mcp::errc::authorization_failed,
                           "MCP server " + server_.name + " names an authorization server that is not an https URL");
    }
    auto urls = authorization_server_metadata_urls(*issuer_url);  // a local: GCC 12
    auto server_doc = co_await first_document(std::move(urls));
    if (!server_doc) co_return server_doc.error();
    if (*server_doc) {
      const std::string& url = (*server_doc)->url;
      auto parsed = parse_authorization_server_metadata((*server_doc)->doc, url);
      if (!parsed) co_return parsed.error();
      // RFC 8414 section 3.3: metadata for another issuer must not be used.
      if (without_trailing_slash(parsed->issuer) != without_trailing_slash(issuer)) {
        co_return make_error(mcp::errc::authorization_failed, "the authorization server metadata at " +
                                                                  net::printable_url(url) + " is for issuer " +
                                                                  parsed->issuer + ", not " + issuer);
      }
      found = std::move(*parsed);
    }
    if (!found) {
      co_return make_error(mcp::errc::authorization_failed, "no metadata found for the authorization server " +
                                                                net::printable_url(issuer) + " of " + server_.name);
    }
  } else {
    // 2025-03-26: no resource metadata; the server's origin is the authorization server.
    auto origin = net::parse_url(net::origin_of(url_)).value();
    auto urls = authorization_server_metadata_urls(origin);  // a local: GCC 12
    auto server_doc = co_await first_document(std::move(urls));
    if (!server_doc) co_return server_doc.error();
    if (*server_doc) {
      auto parsed = parse_authorization_server_metadata((*server_doc)->doc, (*server_doc)->url);
      if (!parsed) co_return parsed.error();
      found = std::move(*parsed);
    } else {
      found = fallback_authorization_server(url_);
    }
  }
  for (const auto* endpoint : {&found->authorization_endpoint, &found->token_endpoint, &found->registration_endpoint,
                               &found->revocation_endpoint}) {
    if (!endpoint->empty() && !acceptable_oauth_url(*endpoint, url_)) {
      co_return make_error(mcp::errc::authorization_failed, "the authorization server of " + server_.name +
                                                                " has an endpoint that is not https (" +
                                                                net::printable_url(*endpoint) + ")");
    }
  }
  if (grant_is_code() && found->discovered) {
    const auto& methods = found->code_challenge_methods_supported;
    if (!methods || std::find(methods->begin(), methods->end(), "S256") == methods->end()) {
      co_return make_error(
          mcp::errc::authorization_failed,
          "the authorization server " + found->issuer + " does not offer PKCE with S256",
          "MCP requires PKCE; the authorization server must advertise code_challenge_methods_supported");
    }
    if (found->authorization_endpoint.empty()) {
      co_return make_error(mcp::errc::authorization_failed,
                           "the authorization server " + found->issuer + " has no authorization_endpoint");
    }
  }
  if (auto pinned = check_issuer_pin(found->issuer); !pinned) co_return pinned.error();
  if (client_ && (!server_metadata_ || server_metadata_->issuer != found->issuer)) client_.reset();
  // Tokens go back only to the authorization server that issued them.
  if (tokens_ && !tokens_->issuer.empty() && tokens_->issuer != found->issuer) {
    core::log_warn("mcp {}: the authorization server changed ({} -> {}); its tokens are dropped", server_.name,
                   tokens_->issuer, found->issuer);
    co_await forget_tokens();
  }
  server_metadata_ = std::move(found);
  resource_metadata_ = std::move(resource);
  core::log_info("mcp {}: OAuth authorization server {}{}", server_.name, server_metadata_->issuer,
                 resource_metadata_ ? "" : " (2025-03-26 discovery)");
  co_return status{};
}

// The issuer this server must use: the configured one, else the one pinned at
// the first discovery. Another one is refused before anything (a client
// secret, a registration, a person's approval) goes to it; only the operator
// can move the pin, by naming the new issuer in oauth.issuer.
status oauth_authorizer::check_issuer_pin(const std::string& issuer) {
  const std::string key = "issuer:" + server_.name;
  auto stored = store_->load(key);
  // A pin that cannot be read is no pin to replace: nothing goes out until it can be.
  if (!stored) {
    return make_error(mcp::errc::authorization_failed,
                      "the pinned OAuth issuer of " + server_.name + " cannot be read: " + stored.error().message,
                      "fix OAUTH_TOKEN_FILE (or the vault key it is sealed with), or name the issuer in oauth.issuer");
  }
  std::string pinned = stored->is_string() ? stored->get<std::string>() : std::string();
  if (!config_.issuer.empty() && without_trailing_slash(config_.issuer) != without_trailing_slash(pinned)) {
    if (!pinned.empty())
      core::log_warn("mcp {}: OAuth issuer pinned anew by oauth.issuer: {} -> {}", server_.name, pinned,
                     config_.issuer);
    pinned = config_.issuer;
    if (auto saved = store_->save(key, pinned); !saved) {
      core::log_warn("mcp {}: the OAuth issuer pin could not be kept: {}", server_.name, saved.error().describe());
    }
  }
  if (pinned.empty()) {
    if (auto saved = store_->save(key, issuer); !saved) {
      core::log_warn("mcp {}: the OAuth issuer pin could not be kept: {}", server_.name, saved.error().describe());
    }
    core::log_info("mcp {}: OAuth issuer {} pinned", server_.name, issuer);
    return {};
  }
  if (without_trailing_slash(pinned) == without_trailing_slash(issuer)) return {};
  core::log_warn("mcp {}: its OAuth discovery now names issuer {}, not the pinned {}: refused", server_.name, issuer,
                 pinned);
  return make_error(mcp::errc::authorization_failed,
                    "MCP server " + server_.name + " now names the authorization server " + net::printable_url(issuer) +
                        ", not " + net::printable_url(pinned) + " it used before: nothing was sent to it",
                    "if the change is expected, set \"issuer\": \"" + issuer + "\" in the oauth block of " +
                        server_.name + " and restart");
}

std::vector<std::string> oauth_authorizer::scopes_for(const std::optional<std::string>& challenge_scope,
                                                      bool step_up) const {
  std::vector<std::string> scopes = config_.scopes;
  if (step_up) add_unique(scopes, tokens_ ? tokens_->scopes : requested_scopes_);
  if (challenge_scope) {
    add_unique(scopes, split_scopes(*challenge_scope));
  } else if (resource_metadata_ && resource_metadata_->scopes_supported) {
    add_unique(scopes, *resource_metadata_->scopes_supported);
  }
  // A refresh token, where the authorization server offers one (SEP-2207).
  const auto& offered = server_metadata_ ? server_metadata_->scopes_supported : std::nullopt;
  if (grant_is_code() && !scopes.empty() && offered &&
      std::find(offered->begin(), offered->end(), "offline_access") != offered->end()) {
    add_unique(scopes, {"offline_access"});
  }
  return scopes;
}

// --- client identity ---------------------------------------------------------

asio::awaitable<status> oauth_authorizer::ensure_client(bool for_new_authorization) {
  const std::string redirect = options_.redirect_uri();
  // A registered client sends people back to where it was registered: a new
  // authorization after the redirect URI changed needs a new registration
  // (a refresh does not).
  if (client_ && for_new_authorization && client_->source == "registered" && client_->redirect_uri != redirect) {
    client_.reset();
  }
  if (client_) co_return status{};
  const auto& as = *server_metadata_;
  if (!config_.client_id.empty()) {
    client_identity c;
    c.client_id = config_.client_id;
    c.client_secret = config_.client_secret;
    c.private_key_pem = config_.private_key_pem;
    c.signing_algorithm = config_.signing_algorithm;
    c.auth_method = choose_auth_method(config_.token_endpoint_auth_method, c.client_secret, c.private_key_pem, as);
    c.source = "pre-registered";
    client_ = std::move(c);
    co_return status{};
  }
  if (as.client_id_metadata_document_supported && !config_.client_metadata_url.empty()) {
    client_identity c;
    c.client_id = config_.client_metadata_url;
    c.auth_method = "none";
    c.source = "metadata document";
    client_ = std::move(c);
    co_return status{};
  }
  // The client the kept tokens were issued to: a refresh must come from it.
  if (kept_client_ && kept_client_issuer_ == as.issuer && !kept_client_->client_id.empty() &&
      (!for_new_authorization || kept_client_->redirect_uri == redirect)) {
    client_ = *kept_client_;
    co_return status{};
  }
  // A registration from an earlier run with the same authorization server
  // (and, for a new authorization, the same redirect URI).
  if (auto saved = store_->load("client:" + server_.name); saved && saved->is_object()) {
    auto kept = client_identity::from_json(saved->value("client", json::object()));
    const bool same_server = saved->contains("issuer") && (*saved)["issuer"] == as.issuer;
    if (same_server && !kept.client_id.empty() && (!for_new_authorization || kept.redirect_uri == redirect)) {
      client_ = std::move(kept);
      co_return status{};
    }
  }
  if (as.registration_endpoint.empty()) {
    co_return make_error(
        mcp::errc::authorization_failed,
        "the authorization server " + as.issuer + " of " + server_.name + " offers no dynamic client registration",
        "register a client there with redirect URI " + redirect + ", then set oauth.clientId (and clientSecret) for " +
            server_.name);
  }
  std::string method = config_.token_endpoint_auth_method;
  if (method.empty()) {
    const auto& supported = as.token_endpoint_auth_methods_supported;
    auto offers = [&](const char* m) { return std::find(supported.begin(), supported.end(), m) != supported.end(); };
    method = offers("client_secret_basic")  ? "client_secret_basic"
             : offers("client_secret_post") ? "client_secret_post"
                                            : "none";
  }
  auto registered = co_await register_client(*http_, as, options_.client_name, redirect, method, config_.scopes);
  if (!registered) co_return registered.error();
  client_ = std::move(*registered);
  if (auto saved = store_->save("client:" + server_.name,
                                json{{"issuer", as.issuer}, {"redirectUri", redirect}, {"client", client_->to_json()}});
      !saved) {
    core::log_warn("mcp {}: the registered client could not be kept: {}", server_.name, saved.error().describe());
  }
  core::log_info("mcp {}: registered with {} as client {}", server_.name, as.issuer, client_->client_id);
  co_return status{};
}

// --- getting tokens ----------------------------------------------------------

status oauth_authorizer::ask_person(std::vector<std::string> scopes, bool step_up) {
  const auto now = clock_.steady_now();
  const bool open = pending_ && pending_->expires > now;
  // A question still open keeps its link (a person may be about to use it):
  // another request's scopes join it, and only more scopes make a new one.
  if (open) {
    auto merged = pending_->scopes;
    add_unique(merged, scopes);
    scopes = std::move(merged);
  }
  if (!open || pending_->scopes != scopes) {
    if (step_up && ++step_ups_ > max_step_ups) {
      return fail(make_error(mcp::errc::authorization_failed,
                             "MCP server " + server_.name + " still wants more scopes after " +
                                 std::to_string(max_step_ups) + " authorizations for more (" + join_scopes(scopes) +
                                 ")",
                             "set the scopes it needs in its oauth block, then authorize again"));
    }
    pending_authorization p;
    p.state = random_token();
    p.verifier = random_token();
    p.scopes = scopes;
    p.redirect_uri = options_.redirect_uri();
    p.server = *server_metadata_;
    p.client = *client_;
    p.resource = resource_metadata_ ? resource_metadata_->resource : std::string();
    p.expires = now + options_.authorization_lifetime;
    p.expires_at = clock_.system_now() + options_.authorization_lifetime;
    form_fields query = {{"response_type", "code"},
                         {"client_id", p.client.client_id},
                         {"redirect_uri", p.redirect_uri},
                         {"state", p.state},
                         {"code_challenge", pkce_challenge(p.verifier)},
                         {"code_challenge_method", "S256"}};
    if (!scopes.empty()) query.emplace_back("scope", join_scopes(scopes));
    if (!p.resource.empty()) query.emplace_back("resource", p.resource);
    const auto& endpoint = p.server.authorization_endpoint;
    p.url = endpoint + (endpoint.find('?') == std::string::npos ? "?" : "&") + net::form_encode(query);
    pending_ = std::move(p);
    requested_scopes_ = scopes;
    last_error_.clear();
    if (for_a_user()) {
      // The link is the user's, given to them (GET /connections, the failed call); not the operator's log.
      core::log_info("mcp {}: a user's authorization is asked for", server_.name);
    } else {
      // The log is where an operator of a server running open finds it (/health shows it to admin keys only).
      core::log_warn(
          "mcp {}: needs authorization by a person: open {} (also the authorizationUrl of mcp.{} in "
          "GET /health with an admin key)",
          server_.name, pending_->url, server_.name);
    }
    changed();
  }
  if (for_a_user()) return connect_your_account(server_.name, pending_->url);
  return make_error(mcp::errc::needs_authorization,
                    "MCP server " + server_.name + " needs authorization" +
                        (scopes.empty() ? "" : " (scopes: " + join_scopes(scopes) + ")"),
                    "an operator opens the authorization URL (in the server's log, and shown for mcp." + server_.name +
                        " in GET /health to an admin key) and approves access; the server is used as soon as that is "
                        "done");
}

asio::awaitable<status> oauth_authorizer::token_grant(const std::vector<std::string>& scopes) {
  if (auto identified = co_await ensure_client(); !identified) co_return fail(identified.error());
  form_fields fields = {{"grant_type", "client_credentials"}};
  if (config_.grant == oauth_config::grant_type::identity_assertion) {
    // Named: a temporary in the co_await expression would be destroyed twice (GCC 12).
    const std::string resource = resource_metadata_ ? resource_metadata_->resource : std::string();
    auto assertion =
        co_await exchange_id_token(*http_, config_.identity_provider, server_metadata_->issuer, resource, scopes);
    if (!assertion) co_return fail(assertion.error());
    fields = {{"grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"}, {"assertion", std::move(*assertion)}};
  }
  if (!scopes.empty()) fields.emplace_back("scope", join_scopes(scopes));
  if (resource_metadata_) fields.emplace_back("resource", resource_metadata_->resource);
  auto tokens = co_await request_tokens(*http_, *server_metadata_, *client_, std::move(fields), scopes, clock_);
  if (!tokens) co_return fail(tokens.error());
  co_await take_tokens(std::move(*tokens), server_metadata_->issuer, false);
  co_return status{};
}

asio::awaitable<status> oauth_authorizer::refresh() {
  if (!tokens_) co_return make_error(mcp::errc::authorization_failed, "there is no token to renew");
  // Tokens kept from an earlier run: find their authorization server first
  // (from the server's well-known metadata; no 401 has named it yet).
  if (!server_metadata_) {
    if (auto found = co_await discover(std::nullopt); !found) co_return found.error();
    if (!tokens_) co_return make_error(mcp::errc::authorization_failed, "the authorization server changed");
  }
  form_fields fields = {{"grant_type", "refresh_token"}, {"refresh_token", tokens_->refresh_token}};
  if (resource_metadata_) fields.emplace_back("resource", resource_metadata_->resource);
  if (auto identified = co_await ensure_client(); !identified) co_return identified.error();
  auto refreshed =
      co_await request_tokens(*http_, *server_metadata_, *client_, std::move(fields), tokens_->scopes, clock_);
  if (!refreshed) {
    // Only a refusal ends the tokens; a network failure or a 5xx leaves them for the next try.
    if (refreshed.error().code == mcp::errc::grant_refused) {
      // Another replica may have renewed them first (its refresh token replaced ours): use its tokens.
      if (auto kept = co_await newer_kept_tokens()) {
        adopt_tokens(std::move(*kept));
        co_return status{};
      }
      co_await forget_tokens();
    }
    co_return refreshed.error();
  }
  // A server may keep the refresh token the same and not send it again.
  if (refreshed->refresh_token.empty() && tokens_) refreshed->refresh_token = tokens_->refresh_token;
  co_await take_tokens(std::move(*refreshed), server_metadata_->issuer, false);
  co_return status{};
}

asio::awaitable<void> oauth_authorizer::take_tokens(token_set tokens, const std::string& issuer, bool from_person) {
  tokens_ = std::move(tokens);
  tokens_->issuer = issuer;
  if (from_person) {
    pending_.reset();
    step_ups_ = 0;
  }
  last_error_.clear();
  co_await persist();
  schedule_refresh();
  changed();
}

void oauth_authorizer::adopt_tokens(token_set tokens) {
  tokens_ = std::move(tokens);
  pending_.reset();
  step_ups_ = 0;
  last_error_.clear();
  core::log_info("mcp {}: using the tokens kept meanwhile (another replica's)", server_.name);
  schedule_refresh();
  changed();
}

asio::awaitable<void> oauth_authorizer::forget_tokens() {
  tokens_.reset();
  refresh_timer_->cancel();
  co_await persist();
  changed();
}

// Renews a refreshable token before it expires even when no request needs
// it. `at_least`: the shortest wait (longer after a renewal that failed, so
// a broken authorization server is not asked in a tight loop).
void oauth_authorizer::schedule_refresh(std::chrono::seconds at_least) {
  refresh_timer_->cancel();
  if (!tokens_ || !tokens_->expires_at || tokens_->refresh_token.empty()) return;
  const auto wait = *tokens_->expires_at - tokens_->renew_ahead() - clock_.system_now();
  refresh_timer_->expires_at(
      clock_.steady_now() +
      std::max<core::steady_time::duration>(std::chrono::duration_cast<core::steady_time::duration>(wait), at_least));
  std::weak_ptr<oauth_authorizer> weak = shared_from_this();
  refresh_timer_->async_wait([weak](bool expired) {
    auto self = expired ? weak.lock() : nullptr;
    if (!self) return;
    core::spawn_logged(
        self->executor_,
        [](std::shared_ptr<oauth_authorizer> me) -> asio::awaitable<void> {
          const auto before = me->tokens_ ? me->tokens_->access_token : std::string();
          co_await me->authorization();  // renews when due
          // A renewal armed the timer for the next expiry; else try again (later when it failed).
          const bool renewed = me->tokens_ && me->tokens_->access_token != before;
          if (!renewed)
            me->schedule_refresh(me->last_error_.empty() ? std::chrono::seconds(1) : std::chrono::seconds(10));
        }(self),
        "mcp " + self->server_.name + ": renewing its OAuth token");
  });
}

asio::awaitable<void> oauth_authorizer::ensure_loaded() {
  if (loaded_) co_return;
  auto lock = co_await flow_lock::take(*this);
  if (loaded_) co_return;
  loaded_ = true;
  if (auto kept = co_await newer_kept_tokens()) {
    tokens_ = std::move(*kept);
    schedule_refresh();
  }
}

asio::awaitable<result<std::optional<token_set>>> oauth_authorizer::kept_tokens() {
  auto saved = co_await store_->fetch("tokens:" + server_.name);
  if (!saved) co_return saved.error();
  // Kept for another URL (the config changed): not this server's.
  if (!saved->is_object() || !saved->contains("url") || (*saved)["url"] != server_.url) {
    co_return std::optional<token_set>();
  }
  auto kept = token_set::from_json(saved->value("tokens", json::object()));
  if (kept.access_token.empty()) co_return std::optional<token_set>();
  if (saved->contains("client") && (*saved)["client"].is_object()) {
    kept_client_ = client_identity::from_json((*saved)["client"]);
    kept_client_issuer_ = saved->value("issuer", std::string());
  }
  co_return std::optional<token_set>(std::move(kept));
}

asio::awaitable<std::optional<token_set>> oauth_authorizer::newer_kept_tokens() {
  auto kept = co_await kept_tokens();
  if (!kept) {
    core::log_warn("mcp {}: kept OAuth tokens cannot be read ({}); it will be authorized again", server_.name,
                   kept.error().describe());
    co_return std::nullopt;
  }
  if (!*kept || (tokens_ && tokens_->access_token == (*kept)->access_token)) co_return std::nullopt;
  co_return std::move(*kept);
}

asio::awaitable<void> oauth_authorizer::persist() {
  json value;
  if (tokens_) {
    value = {{"url", server_.url}, {"tokens", tokens_->to_json()}};
    if (client_ && server_metadata_) {
      value["client"] = client_->to_json();
      value["issuer"] = server_metadata_->issuer;
    }
  }
  if (auto saved = co_await store_->keep("tokens:" + server_.name, std::move(value)); !saved) {
    core::log_warn("mcp {}: OAuth tokens could not be kept: {}", server_.name, saved.error().describe());
  }
}

asio::awaitable<bool> oauth_authorizer::reload() {
  auto self = shared_from_this();
  co_await ensure_loaded();
  auto lock = co_await flow_lock::take(*this);
  auto kept = co_await kept_tokens();
  if (!kept) co_return false;  // unreadable: what is held stays
  if (*kept && (!tokens_ || tokens_->access_token != (*kept)->access_token)) {
    adopt_tokens(std::move(**kept));
    co_return true;
  }
  // A user's tokens gone from the store: they disconnected through another replica.
  if (!*kept && tokens_ && for_a_user()) {
    core::log_info("mcp {}: a user's tokens were forgotten elsewhere; dropped here too", server_.name);
    tokens_.reset();
    refresh_timer_->cancel();
    changed();
    co_return true;
  }
  co_return false;
}

asio::awaitable<void> oauth_authorizer::forget() {
  auto self = shared_from_this();
  co_await ensure_loaded();
  auto lock = co_await flow_lock::take(*this);
  pending_.reset();
  step_ups_ = 0;
  last_error_.clear();
  if (tokens_) co_await revoke();
  co_await forget_tokens();
}

asio::awaitable<void> oauth_authorizer::revoke() {
  // Kept tokens, no request made yet: find the authorization server first.
  if (!server_metadata_) {
    if (auto found = co_await discover(std::nullopt); !found) {
      core::log_warn("mcp {}: tokens forgotten without revoking them ({})", server_.name, found.error().describe());
      co_return;
    }
  }
  if (!tokens_ || !server_metadata_ || server_metadata_->revocation_endpoint.empty()) co_return;
  if (auto identified = co_await ensure_client(); !identified) {
    core::log_warn("mcp {}: tokens forgotten without revoking them ({})", server_.name, identified.error().describe());
    co_return;
  }
  // The refresh token first: revoking it may end its access tokens too (RFC 7009 section 2.1).
  const std::pair<std::string, const char*> held[] = {{tokens_->refresh_token, "refresh_token"},
                                                      {tokens_->access_token, "access_token"}};
  for (const auto& [token, hint] : held) {
    if (token.empty()) continue;
    auto revoked = co_await revoke_token(*http_, *server_metadata_, *client_, token, hint, clock_);
    if (!revoked) core::log_warn("mcp {}: revoking a token failed: {}", server_.name, revoked.error().describe());
  }
}

void oauth_authorizer::changed() {
  for (const auto& listener : listeners_) listener();
}

error oauth_authorizer::fail(error e) {
  last_error_ = e.describe();
  changed();
  return e;
}

}  // namespace harness::mcp
