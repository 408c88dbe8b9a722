#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "harness/mcp_server/ts_signature.hpp"
#include "routes/acting_user.hpp"

namespace harness::http {
namespace {

http_response no_registry() {
  return error_response(http::errc::mcp_unavailable, "no MCP tool registry is configured; set MCP_CONFIG");
}

// The ?userId= the listing is for, or a user key's only user (that user's
// instances of user-scoped servers, started if nobody has learned their
// tools yet); without one, the shared servers' tools and the user-scoped
// ones' as last learned.
using user_or_answer = std::variant<std::optional<std::string>, http_response>;

boost::asio::awaitable<user_or_answer> prepared_user(const request_context& context) {
  auto named = named_query_user(context);
  if (auto* answer = std::get_if<http_response>(&named)) co_return std::move(*answer);
  auto user = std::get<std::optional<std::string>>(named);
  // A user key acts for its only user without naming it.
  if (!user && !context.caller.admin && context.caller.users.size() == 1) user = context.caller.users.front();
  auto registry = context.svc.tools;  // keeps it alive across the await
  if (user) co_await registry->prepare(*user);
  co_return user;
}

}  // namespace

boost::asio::awaitable<http_response> handle_list_tools(const request_context& context) {
  if (!context.svc.tools) co_return no_registry();
  auto user = co_await prepared_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  auto query = context.request.query.find("query");
  auto tools = context.svc.tools->list_for(std::get<std::optional<std::string>>(user).value_or(std::string()),
                                           query == context.request.query.end() ? std::string() : query->second);
  co_return json_response(200, {{"tools", std::move(tools)}});
}

boost::asio::awaitable<http_response> handle_tool_details(const request_context& context) {
  if (!context.svc.tools) co_return no_registry();
  auto user = co_await prepared_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  auto details = context.svc.tools->details_for(std::get<std::optional<std::string>>(user).value_or(std::string()),
                                                context.params.at("name"));
  if (!details) co_return error_response(details.error());
  (*details)["declaration"] = mcp_server::ts_declaration(*details);
  co_return json_response(200, *details);
}

}  // namespace harness::http
