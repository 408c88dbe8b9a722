#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"
#include "harness/mcp/tool_registry.hpp"
#include "harness/mcp_server/ts_signature.hpp"

namespace harness::http {
namespace {

http_response no_registry() {
  return error_response(http::errc::mcp_unavailable, "no MCP tool registry is configured; set MCP_CONFIG");
}

}  // namespace

http_response handle_list_tools(const request_context& context) {
  if (!context.svc.tools) return no_registry();
  auto query = context.request.query.find("query");
  auto tools = context.svc.tools->list(query == context.request.query.end() ? std::string() : query->second);
  return json_response(200, {{"tools", std::move(tools)}});
}

http_response handle_tool_details(const request_context& context) {
  if (!context.svc.tools) return no_registry();
  auto details = context.svc.tools->details(context.params.at("name"));
  if (!details) return error_response(details.error());
  (*details)["declaration"] = mcp_server::ts_declaration(*details);
  return json_response(200, *details);
}

}  // namespace harness::http
