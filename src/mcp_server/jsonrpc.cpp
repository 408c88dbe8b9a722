#include "jsonrpc.hpp"

namespace harness::mcp_server::jsonrpc {

nlohmann::json result(const nlohmann::json& id, nlohmann::json value) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(value)}};
}

nlohmann::json error(const nlohmann::json& id, int code, std::string_view message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

nlohmann::json notification(std::string_view method, nlohmann::json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace harness::mcp_server::jsonrpc
