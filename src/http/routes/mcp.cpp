// /mcp: code mode over MCP's Streamable HTTP transport, in both eras,
// decided per request (docs/MCP_SERVER.md, "Two eras").
//
// 2025 era: POST carries one JSON-RPC message; the answer is JSON, or an SSE
// stream when the request asked for progress (its progress notifications,
// then the answer), which a client that lost the connection resumes with
// GET and Last-Event-ID. A plain GET is 405 (no messages of the server's
// own); DELETE ends the session. The session id comes with initialize in
// Mcp-Session-Id and belongs to the key that opened it.
//
// 2026-07-28 era (a request whose params._meta names the version, or whose
// MCP-Protocol-Version header does): POST only, no session id; the headers
// must agree with the body (-32020), the envelope must be complete (-32602)
// and of a version spoken here (-32022), all with 400; the answer is JSON.
// GET and DELETE in this era are 405.
//
// Errors use JSON-RPC's shape, as MCP clients expect; the key check before
// them is the gate's (401 with WWW-Authenticate).
#include <boost/asio/this_coro.hpp>

#include <fmt/format.h>

#include "acting_user.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "harness/mcp_server/mcp_face.hpp"
#include "harness/mcp_server/modern.hpp"

namespace harness::http {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;
using mcp_server::message_kind;

// The user of a session opened without a key (a server running open on a
// loopback host) that names none with ?userId=.
constexpr const char* open_user = "local";

http_response rpc_answer(unsigned status, const json& body) {
  http_response r;
  r.status = status;
  r.set_header("Content-Type", "application/json");
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

http_response rpc_failure(unsigned status, int code, std::string_view message) {
  return rpc_answer(status, {{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", code}, {"message", message}}}});
}

bool accepts(const http_request& request, std::string_view type) {
  auto accept = request.header("Accept");
  if (!accept) return false;
  for (auto item : split_field_list(*accept)) {
    auto media = item.substr(0, item.find(';'));
    while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
    if (iequals(media, type) || media == "*/*") return true;
  }
  return false;
}

// The answer to an initialize that got no session: the server's own limit
// is 503, a caller's share of it 429 (it frees when that caller ends one).
http_response session_refused(mcp_server::session_refusal why) {
  http_response answer;
  switch (why) {
    case mcp_server::session_refusal::key_full:
      answer = rpc_failure(429, -32000,
                           "Too Many Requests: this API key holds the most MCP sessions one key may "
                           "(MCP_MAX_SESSIONS_PER_KEY); end one with DELETE /mcp, or wait for one to idle out");
      break;
    case mcp_server::session_refusal::user_full:
      answer = rpc_failure(429, -32000,
                           "Too Many Requests: this user holds the most MCP sessions one user may "
                           "(MCP_MAX_SESSIONS_PER_USER); end one with DELETE /mcp, or wait for one to idle out");
      break;
    default:
      answer = rpc_failure(503, -32000, "Service Unavailable: too many MCP sessions are open (MCP_MAX_SESSIONS)");
  }
  answer.set_header("Retry-After", "5");
  return answer;
}

// A version header of neither era: -32022 with what is spoken, as 2026-07-28 answers.
http_response unsupported_version_header(std::string_view version) {
  std::vector<std::string> supported = mcp_server::modern::versions();
  for (const auto& v : mcp_server::supported_versions()) supported.push_back(v);
  json body{{"jsonrpc", "2.0"},
            {"id", nullptr},
            {"error",
             {{"code", mcp_server::modern::unsupported_version},
              {"message", fmt::format("Unsupported MCP-Protocol-Version {}; this server speaks {}",
                                      version.substr(0, 40), fmt::join(supported, ", "))},
              {"data", {{"supported", supported}, {"requested", version.substr(0, 40)}}}}}};
  return rpc_answer(400, body);
}

bool modern_header(const http_request& request) {
  auto version = request.header("MCP-Protocol-Version");
  return version && mcp_server::modern::is_modern_version(*version);
}

// 2026-07-28 has no GET stream and no session to DELETE.
http_response no_sessions_in_this_era() {
  auto r = rpc_failure(405, -32600,
                       "Method Not Allowed: MCP 2026-07-28 has no sessions and no server stream; POST each request");
  r.set_header("Allow", "POST");
  return r;
}

// Checks every /mcp request shares: Origin (DNS rebinding) and the protocol version header.
std::optional<http_response> refuse_early(const request_context& context) {
  const auto& request = context.request;
  if (auto origin = request.header("Origin"); origin && !context.svc.sources.mcp_origin_allowed(*origin)) {
    return rpc_failure(403, -32000,
                       fmt::format("Forbidden: origin {} may not call this server (allow it with MCP_ALLOWED_ORIGINS)",
                                   origin->substr(0, 200)));
  }
  if (auto version = request.header("MCP-Protocol-Version")) {
    const auto& versions = mcp_server::supported_versions();
    if (!mcp_server::modern::is_modern_version(*version) &&
        std::find(versions.begin(), versions.end(), *version) == versions.end()) {
      return unsupported_version_header(*version);
    }
  }
  if (!context.svc.mcp) return rpc_failure(503, -32603, "the MCP server face is not configured on this server");
  return std::nullopt;
}

// The session named by Mcp-Session-Id, or the answer to send instead.
std::variant<std::shared_ptr<mcp_server::mcp_session>, http_response> named_session(const request_context& context) {
  auto id = context.request.header("Mcp-Session-Id");
  if (!id) {
    return rpc_failure(400, -32000, "Bad Request: no Mcp-Session-Id header; start a session with initialize");
  }
  auto session = context.svc.mcp->find(std::string(*id), context.caller.key_id);
  if (session && session->is_handle()) session = nullptr;  // a 2026-07-28 handle is no 2025 session
  if (!session) {
    // 421 Misdirected Request: the session's sandbox and state are on that replica.
    if (auto replica = context.svc.mcp->elsewhere(std::string(*id)); !replica.empty()) {
      return rpc_failure(421, -32001,
                         fmt::format("Session lives on replica '{}': send its requests there (route by what "
                                     "follows the first '.' of Mcp-Session-Id, see docs/DEPLOYMENT.md)",
                                     replica.substr(0, 64)));
    }
    return rpc_failure(404, -32001, "Session not found: it ended or idled out; initialize a new one");
  }
  return session;
}

// The user a new session acts for: ?userId= when given, else the key's only
// user; without a key, "local".
std::variant<std::string, http_response> session_user(const request_context& context) {
  auto named = named_query_user(context);
  if (auto* refused = std::get_if<http_response>(&named)) return std::move(*refused);
  auto requested = std::get<std::optional<std::string>>(std::move(named));
  if (!requested && context.caller.key_id.empty()) return std::string(open_user);  // the open caller
  auto user = auth::resolve_user(context.caller, requested);
  if (!user) return error_response(user.error());
  return std::move(*user);
}

// One connection's view of a request's event stream: from the priming event
// (a new stream) or from after the client's Last-Event-ID (a resumed one) to
// the answer. The stream itself belongs to the session, so the request runs
// on and its events are kept when this connection drops.
class stream_reader final : public body_stream {
 public:
  stream_reader(std::shared_ptr<mcp_server::event_stream> stream, std::optional<std::uint64_t> after)
      : stream_(std::move(stream)), prime_(!after), seq_(after.value_or(0)) {}

  asio::awaitable<std::optional<std::string>> next() override {
    if (std::exchange(prime_, false)) co_return stream_->priming_event();
    auto event = co_await stream_->next_after(seq_);
    if (!event) co_return std::nullopt;
    seq_ = event->seq;
    co_return std::move(event->text);
  }

 private:
  std::shared_ptr<mcp_server::event_stream> stream_;
  bool prime_;
  std::uint64_t seq_;
};

http_response event_stream_response(std::shared_ptr<mcp_server::event_stream> stream,
                                    std::optional<std::uint64_t> after) {
  http_response streamed;
  streamed.set_header("Content-Type", "text/event-stream");
  streamed.set_header("Cache-Control", "no-cache");
  streamed.stream = std::make_shared<stream_reader>(std::move(stream), after);
  return streamed;
}

asio::awaitable<void> answer_into(std::shared_ptr<mcp_server::mcp_session> session, json message,
                                  std::shared_ptr<mcp_server::event_stream> stream) {
  mcp_server::notify_fn notify = [stream](json note) {
    stream->push(note);
  };  // named: no lambda temporary in co_await (GCC 12)
  auto answer = co_await session->handle(std::move(message), notify);
  if (answer) stream->push(*answer);
  stream->finish();
}

bool wants_progress(const json& message) {
  const auto params = message.find("params");
  if (params == message.end() || !params->is_object()) return false;
  const auto meta = params->find("_meta");
  return meta != params->end() && meta->is_object() && meta->contains("progressToken");
}

std::optional<std::string> header_text(const http_request& request, std::string_view name) {
  auto value = request.header(name);
  if (!value) return std::nullopt;
  return std::string(*value);
}

// MCP carries trace context in a request's _meta, which is where the face
// reads it (over stdio too). A tools/call whose client sent none there gets
// the context of this HTTP request's own span (the child of a traceparent
// header, if any), so the call's spans hang below the request's.
void lend_trace(json& message, const http_request& request) {
  if (!request.trace.context().valid() || !message.is_object() || message.value("method", json()) != "tools/call") {
    return;
  }
  auto params = message.find("params");
  if (params == message.end() || !params->is_object()) return;
  json& meta = (*params)["_meta"];
  if (meta.is_null()) meta = json::object();
  if (!meta.is_object() || meta.contains("traceparent")) return;
  meta["traceparent"] = request.trace.traceparent();
  if (!request.trace.context().state.empty()) meta["tracestate"] = request.trace.context().state;
}

// A POST of the 2026-07-28 era: checked, then handled statelessly for the
// caller (the same user rule as initialize: ?userId=, or the key's only user).
asio::awaitable<http_response> handle_modern_post(const request_context& context, json message) {
  namespace modern = mcp_server::modern;
  const auto& request = context.request;
  if (!modern::claimed_version(message)) co_return rpc_answer(400, *modern::check_envelope(message));
  const modern::request_headers headers{header_text(request, "MCP-Protocol-Version"),
                                        header_text(request, "Mcp-Method"), header_text(request, "Mcp-Name"),
                                        header_text(request, "Mcp-Param-Session")};
  if (auto mismatch = modern::check_headers(message, headers)) co_return rpc_answer(400, *mismatch);
  if (auto bad = modern::check_envelope(message)) co_return rpc_answer(400, *bad);
  auto user = session_user(context);
  if (auto* refused = std::get_if<http_response>(&user)) co_return std::move(*refused);
  mcp_server::mcp_caller caller{std::get<std::string>(std::move(user)), context.caller.key_id, context.caller.admin};
  const auto kind = mcp_server::kind_of(message);
  if (kind == message_kind::notification) {
    // Nothing to deliver: over HTTP a client cancels by closing its connection, not with notifications/cancelled.
    http_response accepted;
    accepted.status = 202;
    co_return accepted;
  }
  const mcp_server::notify_fn no_notes;  // a JSON answer carries no notifications
  // "The server MUST treat a client disconnect as cancellation of that
  // request": a tools/call whose client closes its connection stops.
  std::shared_ptr<core::abandonment> abandoned;
  if (request.client && message.value("method", json()) == "tools/call") {
    abandoned = std::make_shared<core::abandonment>();
    request.client->watch([abandoned] { abandoned->fire(); });
  }
  auto answer = co_await context.svc.mcp->handle_modern(std::move(message), std::move(caller), no_notes, abandoned);
  if (!answer) {
    http_response accepted;
    accepted.status = 202;
    co_return accepted;
  }
  unsigned status = kind == message_kind::request ? 200 : 400;
  // The transport's rule for a method the server does not have.
  if (answer->contains("error") && (*answer)["error"].is_object() && (*answer)["error"].value("code", 0) == -32601) {
    status = 404;
  }
  // A session handle of another replica: the load balancer's mistake, 421 as in the 2025 era.
  if (const auto* error = answer->contains("error") ? &(*answer)["error"] : nullptr;
      error && error->is_object() && error->contains("data") && (*error)["data"].is_object() &&
      (*error)["data"].contains("replica")) {
    status = 421;
  }
  co_return rpc_answer(status, *answer);
}

}  // namespace

asio::awaitable<http_response> handle_mcp_post(const request_context& context) {
  if (auto refused = refuse_early(context)) co_return *refused;
  const auto& request = context.request;
  if (auto type = request.header("Content-Type");
      type && !iequals(type->substr(0, type->find(';')), "application/json")) {
    co_return rpc_failure(415, -32700, "Unsupported Media Type: send one JSON-RPC message as application/json");
  }
  std::string why;
  json message = core::parse_json(request.body, &why);
  if (message.is_discarded()) co_return rpc_failure(400, -32700, "Parse error: " + why);
  if (message.is_array()) {
    co_return rpc_failure(400, -32600, "Invalid Request: batches are not supported; send one message per POST");
  }
  lend_trace(message, request);
  if (mcp_server::modern::claimed_version(message) || modern_header(request)) {
    co_return co_await handle_modern_post(context, std::move(message));
  }
  const auto kind = mcp_server::kind_of(message);
  const bool initialize = kind == message_kind::request && message["method"] == "initialize";

  std::shared_ptr<mcp_server::mcp_session> session;
  if (initialize && !request.header("Mcp-Session-Id")) {
    auto user = session_user(context);
    if (auto* refused = std::get_if<http_response>(&user)) co_return std::move(*refused);
    auto opened =
        context.svc.mcp->open(std::get<std::string>(std::move(user)), context.caller.key_id, context.caller.admin);
    if (!opened.session) co_return session_refused(opened.refused);
    session = std::move(opened.session);
  } else {
    auto found = named_session(context);
    if (auto* refused = std::get_if<http_response>(&found)) co_return std::move(*refused);
    session = std::get<std::shared_ptr<mcp_server::mcp_session>>(std::move(found));
  }

  if (kind != message_kind::request) {
    // A notification or a response: taken, nothing to answer.
    const mcp_server::notify_fn no_notes;  // named: no temporary in co_await (GCC 12)
    auto answer = co_await session->handle(std::move(message), no_notes);
    if (answer) co_return rpc_answer(400, *answer);
    http_response accepted;
    accepted.status = 202;
    co_return accepted;
  }
  // A tools/call of a client that can be asked (elicitation) may need its
  // stream for a request of ours, so it gets one too.
  const bool may_ask = session->can_elicit() && message.value("method", json()) == "tools/call";
  if ((wants_progress(message) || may_ask) && accepts(request, "text/event-stream")) {
    // The request runs on its own, so a dropped connection neither cancels
    // it (the protocol says so) nor loses its answer: GET resumes the stream.
    auto executor = co_await asio::this_coro::executor;
    auto stream = session->streams().open();
    auto work = answer_into(session, std::move(message), stream);
    core::spawn_logged(executor, std::move(work), "mcp: answering a request");
    co_return event_stream_response(std::move(stream), std::nullopt);
  }
  const mcp_server::notify_fn no_notes;  // a JSON answer carries no notifications
  auto answer = co_await session->handle(std::move(message), no_notes);
  http_response out;  // 202 without a body: the client cancelled this request
  out.status = 202;
  if (answer) out = rpc_answer(200, *answer);
  if (initialize) out.set_header("Mcp-Session-Id", session->id());
  co_return out;
}

// GET resumes a request's SSE stream after a dropped connection (with
// Last-Event-ID); without one it would open a stream for messages of the
// server's own, and this server sends none (405, as the transport allows).
http_response handle_mcp_get(const request_context& context) {
  if (auto refused = refuse_early(context)) return *refused;
  if (modern_header(context.request)) return no_sessions_in_this_era();
  auto last = context.request.header("Last-Event-ID");
  if (!last) {
    auto r = rpc_failure(405, -32000,
                         "Method Not Allowed: this server sends no messages of its own; POST requests (GET with "
                         "Last-Event-ID resumes a request's event stream)");
    r.set_header("Allow", "POST, DELETE");
    return r;
  }
  if (!accepts(context.request, "text/event-stream")) {
    return rpc_failure(406, -32000, "Not Acceptable: resuming a stream needs Accept: text/event-stream");
  }
  auto found = named_session(context);
  if (auto* refused = std::get_if<http_response>(&found)) return std::move(*refused);
  auto session = std::get<std::shared_ptr<mcp_server::mcp_session>>(std::move(found));
  auto id = mcp_server::parse_event_id(*last);
  if (!id) {
    return rpc_failure(400, -32000,
                       fmt::format("Bad Request: Last-Event-ID {} is not an event id of this server "
                                   "(\"<stream>-<seq>\", as its events carry)",
                                   last->substr(0, 60)));
  }
  auto stream = session->streams().find(id->stream);
  if (!stream) {
    return rpc_failure(404, -32000,
                       "Not Found: no stream of this session has that event; it ended more than 5 minutes ago or "
                       "was never sent. Send the request again");
  }
  return event_stream_response(std::move(stream), id->seq);
}

asio::awaitable<http_response> handle_mcp_delete(const request_context& context) {
  if (auto refused = refuse_early(context)) co_return *refused;
  if (modern_header(context.request)) co_return no_sessions_in_this_era();
  auto found = named_session(context);
  if (auto* refused = std::get_if<http_response>(&found)) co_return std::move(*refused);
  auto face = context.svc.mcp;
  auto session = std::get<std::shared_ptr<mcp_server::mcp_session>>(std::move(found));
  co_await face->end(session->id(), context.caller.key_id);
  co_return rpc_answer(200, {{"ended", true}});
}

}  // namespace harness::http
