// MCP configuration: the ecosystem's `mcpServers` JSON file (the format Claude
// Desktop, Cursor and VS Code use) plus the client's timeouts and limits.
//
//   {"mcpServers": {
//      "fs":     {"command": "node", "args": ["..."], "env": {"K": "${VAR}"}, "cwd": "..."},
//      "remote": {"url": "http://127.0.0.1:8080/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}
//
// `${VAR}` and `${VAR:-default}` are expanded in command, args, env, cwd, url
// and headers from the process environment; `${MCP_CONFIG_DIR}` is the folder
// holding the file. An unset variable without a default is an error.
//
// A server with `"scope": "user"` runs one instance per user (see
// user_servers.hpp): `${user.id}` in its args, env, cwd, url, headers and
// `directories` is the acting user's id, filled in when that user's instance
// starts. A shared server (the default) cannot name `${user.id}`. Its args,
// env and headers may also name `${secret:NAME}`, the acting user's secret.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"
#include "harness/telemetry/span.hpp"

namespace harness::mcp {

// stdio: a child process; http: Streamable HTTP; sse: the HTTP+SSE transport
// of protocol 2024-11-05 ("type": "sse"), for servers older than Streamable HTTP.
enum class transport_kind { stdio, http, sse };

// A remote server's "oauth" block. Secrets (clientSecret, privateKey) may only
// be written as ${VAR}, so the file itself never holds one.
//
//   "oauth": {"clientId": "...", "clientSecret": "${SECRET}", "scopes": ["repo"],
//             "grant": "authorization_code" | "client_credentials",
//             "clientMetadataUrl": "https://.../client.json",
//             "tokenEndpointAuthMethod": "client_secret_basic" | "client_secret_post" | "none" | "private_key_jwt",
//             "privateKey": "${PEM}" | "privateKeyFile": "key.pem", "signingAlgorithm": "ES256"}
//
// Enterprise-managed authorization (SEP-990, "grant": "identity_assertion"):
// the user's ID token from the company's identity provider is exchanged
// there for an identity assertion (ID-JAG), which the MCP server's
// authorization server takes as a JWT bearer grant:
//   "identityProvider": {"tokenEndpoint": "https://idp/token", "clientId": "...",
//                        "clientSecret": "${IDP_SECRET}", "idToken": "${ID_TOKEN}"}
struct identity_provider_config {
  std::string token_endpoint;
  std::string client_id;
  std::string client_secret;
  std::string id_token;
};

struct oauth_config {
  std::string client_id;            // pre-registered; empty: CIMD or dynamic registration
  std::string client_secret;        // for client_secret_basic / client_secret_post
  std::string client_metadata_url;  // a Client ID Metadata Document this harness is known by
  enum class grant_type {
    authorization_code,
    client_credentials,
    identity_assertion
  } grant = grant_type::authorization_code;
  identity_provider_config identity_provider;  // identity_assertion only
  std::vector<std::string> scopes;             // asked for in addition to what the server names
  std::string token_endpoint_auth_method;      // empty: the best the authorization server offers
  std::string private_key_pem;                 // private_key_jwt
  std::string signing_algorithm;               // private_key_jwt; empty: from the key (ES256, RS256)
  // The authorization server's issuer this server must use. Empty: the one
  // found at the first discovery is pinned (kept in OAUTH_TOKEN_FILE); a
  // later discovery naming another is refused until this names it.
  std::string issuer;
};

// shared: one instance serves every user; user: one instance per acting user.
enum class server_scope { shared, user };

// What `${user.id}` is written as in a user-scoped server's fields until an
// instance for a user fills it in.
inline constexpr std::string_view user_id_placeholder = "${user.id}";
// `${secret:NAME}` in a user-scoped server's args, env and headers: the
// acting user's secret NAME (secrets/secret_store.hpp), filled in when that
// user's instance starts; kept as written until then.
inline constexpr std::string_view secret_placeholder_open = "${secret:";

struct server_config {
  std::string name;  // the key under mcpServers; [A-Za-z0-9_-], no "__" (it separates server__tool)
  transport_kind kind = transport_kind::stdio;
  server_scope scope = server_scope::shared;
  // Folders created (mode 700) before the server starts: the per-user roots a
  // user-scoped server's args or env name, such as data/files/${user.id}.
  std::vector<std::string> directories;
  // stdio
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // added to a minimal inherited environment
  std::string cwd;                         // empty: the harness's working directory
  // http
  std::string url;
  std::map<std::string, std::string> headers;
  // OAuth (see oauth_config): nullopt without an "oauth" block, which means
  // OAuth when the server asks for it, unless headers carry an Authorization
  // or the block is `false`.
  std::optional<oauth_config> oauth;
  bool oauth_disabled = false;
  // OAuth discovery and registration fetch URLs the server chooses: only
  // public addresses, unless this is set ("allowPrivateNetwork"; by default
  // set for a server whose own URL names localhost or a non-public address).
  bool allow_private_network = false;
  // A required server that is down makes /health "degraded" (503); default true.
  bool required = true;
  // Not from the file: the user a user-scoped server's instance acts for
  // (empty for a shared server). Its OAuth tokens are this user's.
  std::string user;
  // Per-server override of the request timeout; nullopt: the client default.
  std::optional<std::chrono::milliseconds> timeout;
  // Not from the file: what the server writes that the harness logs or keeps
  // (stderr lines, stdout lines that are not JSON-RPC) passes through this
  // first. A user's instance replaces the user's secret values there.
  std::function<std::string(std::string)> redact;
};

// How long one request may take. `timeout`: the deadline without progress
// (nullopt: the server's request timeout); progress notifications push it out
// again, up to MCP_MAX_REQUEST_MS. `not_after`: a hard end that progress
// cannot push back (a sandbox block's own deadline).
struct call_deadline {
  call_deadline() = default;
  call_deadline(std::chrono::milliseconds t) : timeout(t) {}                 // NOLINT: implicit on purpose
  call_deadline(std::optional<std::chrono::milliseconds> t) : timeout(t) {}  // NOLINT
  static call_deadline until(std::chrono::steady_clock::time_point end) {
    call_deadline d;
    d.not_after = end;
    return d;
  }
  std::optional<std::chrono::milliseconds> timeout;
  std::optional<std::chrono::steady_clock::time_point> not_after;
  // Who answers the server's elicitation/create while this request runs
  // (the result to send, or nullopt); empty, or nullopt: the schema's
  // defaults when they cover the required fields, else decline. The time
  // spent waiting for the answer does not count against the deadlines.
  std::function<boost::asio::awaitable<std::optional<nlohmann::json>>(nlohmann::json)> elicit{};
  // Who the call acts for: a user-scoped server's call goes to this user's
  // instance (started if need be). Empty: no user, which such a server refuses.
  std::string user{};
  // The span the MCP request's client span hangs below; the request carries
  // its traceparent in params._meta (and over HTTP as a header). Empty: not traced.
  telemetry::span_parent trace{};
};

struct client_limits {
  std::chrono::milliseconds request_timeout{30000};    // without progress
  std::chrono::milliseconds max_request_time{300000};  // hard cap, progress notifications included
  std::chrono::milliseconds startup_timeout{60000};    // spawn + initialize + first tools/list
  std::chrono::milliseconds shutdown_grace{2000};      // stdin closed -> SIGTERM -> SIGKILL steps
  std::size_t max_message_bytes = 16 * 1024 * 1024;    // one stdio line / one HTTP body or SSE event
  std::size_t max_pages = 100;                         // tools/list pages before we call it endless
  std::size_t max_tools_per_server = 1000;             // tools taken from one server; the rest are dropped
  std::chrono::milliseconds restart_backoff_min{500};
  std::chrono::milliseconds restart_backoff_max{30000};
};

// Instances of user-scoped servers (MCP_USER_SERVER_IDLE_MS, MCP_MAX_USER_SERVERS).
struct user_server_limits {
  std::chrono::milliseconds idle{600000};  // an instance without calls this long is stopped
  std::size_t max_instances = 32;          // at once, over all users and servers
};

struct mcp_config {
  std::string config_path;  // where the servers came from, for messages
  std::vector<server_config> servers;
  client_limits limits;
  user_server_limits user_servers;
};

// Looks up an environment variable; nullopt when unset. Injected so tests need no setenv.
using env_lookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment (getenv).
env_lookup process_env();

// Expands ${VAR} / ${VAR:-default} (defaults may nest); fails naming the variable.
result<std::string> expand_variables(const std::string& text, const env_lookup& env);

// Whether a remote server authorizes with OAuth.
bool uses_oauth(const server_config& server);

// Parses the text of an mcpServers file. config_dir fills ${MCP_CONFIG_DIR}.
// Errors name the server and field ("mcpServers.fs.args[1]: ...").
result<std::vector<server_config>> parse_mcp_servers(const std::string& json_text, const std::string& config_dir,
                                                     const env_lookup& env);

// Settings this component reads: MCP_CONFIG, MCP_REQUEST_TIMEOUT_MS, ...
std::vector<core::setting_spec> mcp_setting_specs();

// Reads the settings, then the MCP_CONFIG file. A missing or malformed file is an error.
result<mcp_config> load_mcp_config(const core::settings& settings, const env_lookup& env = process_env());

}  // namespace harness::mcp
