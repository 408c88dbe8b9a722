// GET /connections, POST /connections/{server}, DELETE /connections/{server}:
// the acting user's own accounts at user-scoped remote MCP servers that use
// OAuth (?userId=, checked like every route's). Each user connects their
// account once (the link POST gives opens the authorization server; its
// return to /oauth/callback keeps the tokens for that user alone), and their
// code acts as them from then on.
#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "routes/acting_user.hpp"

namespace harness::http {

boost::asio::awaitable<http_response> handle_list_connections(const request_context& context) {
  auto user = query_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  const auto& user_id = std::get<std::string>(user);
  nlohmann::json connections = nlohmann::json::array();
  if (auto tools = context.svc.tools) connections = co_await tools->connections(user_id);
  co_return json_response(200, {{"userId", user_id}, {"connections", std::move(connections)}});
}

boost::asio::awaitable<http_response> handle_connect(const request_context& context) {
  auto user = query_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  const auto& user_id = std::get<std::string>(user);
  auto tools = context.svc.tools;
  if (!tools) co_return error_response(make_error(mcp::errc::no_such_connection, "this server has no MCP servers"));
  auto connection = co_await tools->connect(user_id, context.params.at("server"));
  if (!connection) co_return error_response(connection.error());
  (*connection)["userId"] = user_id;
  co_return json_response(200, std::move(*connection));
}

boost::asio::awaitable<http_response> handle_disconnect(const request_context& context) {
  auto user = query_user(context);
  if (auto* answer = std::get_if<http_response>(&user)) co_return std::move(*answer);
  const auto& user_id = std::get<std::string>(user);
  auto tools = context.svc.tools;
  if (!tools) co_return error_response(make_error(mcp::errc::no_such_connection, "this server has no MCP servers"));
  const auto& server = context.params.at("server");
  auto forgotten = co_await tools->disconnect(user_id, server);
  if (!forgotten) co_return error_response(forgotten.error());
  co_return json_response(200, {{"userId", user_id}, {"server", server}, {"disconnected", true}});
}

}  // namespace harness::http
