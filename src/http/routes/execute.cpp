#include "acting_user.hpp"
#include "harness/bridge/outcome_json.hpp"
#include "harness/execution/execution_service.hpp"
#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"
#include "validation.hpp"

namespace harness::http {
namespace {

http_response sandbox_unavailable() {
  return error_response(http::errc::sandbox_unavailable,
                        "no sandbox backend is configured in this server; see GET /health for the docker engine");
}

// The /execute response body: the block's outcome (bridge::outcome_json),
// "sessionId" (null for a one-shot block), "language", "sandbox": {"warm", "ended",
// "opened", "channel"}, "durationMs", and "timing": {"openMs", "blockMs",
// "runtimeMs"}, where durationMs went: opening the sandbox, the block on the
// host (frame out to answer in), and of that the runtime's own time; the rest
// of the block is the trip through the channel.
nlohmann::json execute_body(const execution::execute_outcome& out) {
  using json = nlohmann::json;
  json body = bridge::outcome_json(out.block);
  body["sessionId"] = out.session_id ? json(*out.session_id) : json(nullptr);
  body["language"] = sandbox::language_name(out.language);
  body["sandbox"] = {{"warm", out.warm}, {"ended", out.ended}, {"opened", out.opened}, {"channel", out.channel}};
  body["durationMs"] = out.total_ms;
  body["timing"] = {{"openMs", out.open_ms}, {"blockMs", out.block.ms}, {"runtimeMs", out.block.runtime_ms}};
  return body;
}

}  // namespace

boost::asio::awaitable<http_response> handle_execute(const request_context& context) {
  const auto& body = context.body;
  if (auto bad = check_known_fields(body, {"userId", "code", "sessionId", "language"})) co_return *bad;
  if (auto bad = check_optional_choice(body, "language", {"javascript", "python"})) co_return *bad;
  auto user = body_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  if (auto bad = check_text(body, "code", context.svc.limits.code_max_chars)) co_return *bad;
  if (body.contains("sessionId")) {
    if (auto bad = check_user_id(body, "sessionId")) co_return *bad;
  }
  if (!context.svc.execution) co_return sandbox_unavailable();
  execution::execute_request request;
  request.user_id = std::get<std::string>(std::move(user));
  request.key_id = context.caller.key_id;
  request.admin = context.caller.admin;
  request.code = body["code"].get<std::string>();
  if (body.contains("sessionId")) request.session_id = body["sessionId"].get<std::string>();
  if (body.contains("language")) request.language = *sandbox::parse_language(body["language"].get<std::string>());
  request.trace = context.request.trace;
  auto service = context.svc.execution;  // keeps it alive across the await
  auto outcome = co_await service->execute(std::move(request));
  if (!outcome) co_return error_response(outcome.error());
  co_return json_response(200, execute_body(*outcome));
}

boost::asio::awaitable<http_response> handle_delete_session(const request_context& context) {
  auto user = query_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  if (!context.svc.execution) co_return sandbox_unavailable();
  auto service = context.svc.execution;
  auto user_id = std::get<std::string>(std::move(user));
  const auto& session_id = context.params.at("id");
  auto ended = co_await service->end_session(user_id, session_id);
  if (!ended) co_return error_response(ended.error());
  co_return json_response(200, {{"sessionId", context.params.at("id")}, {"ended", true}});
}

}  // namespace harness::http
