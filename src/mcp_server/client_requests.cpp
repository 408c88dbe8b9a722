#include "client_requests.hpp"

#include "jsonrpc.hpp"

namespace harness::mcp_server {

using json = nlohmann::json;

boost::asio::awaitable<std::optional<json>> client_requests::ask(std::string method, json params, send_fn send,
                                                                 std::chrono::steady_clock::time_point deadline) {
  if (closed_ || !send) co_return std::nullopt;
  // Ids of our own, never like a client's: "harness-<n>".
  const json id = "harness-" + std::to_string(++next_id_);
  const std::string key = id.dump();
  auto entry = std::make_shared<waiting>(executor_);
  waiting_[key] = entry;
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", std::move(method)}, {"params", std::move(params)}});
  while (!entry->response && !closed_) {
    if (!co_await entry->wake.wait_until(deadline)) break;
  }
  waiting_.erase(key);
  if (!entry->response && !closed_) {
    send(jsonrpc::notification("notifications/cancelled",
                               {{"requestId", id}, {"reason", "nobody answered in time; the call was denied"}}));
  }
  co_return std::move(entry->response);
}

bool client_requests::deliver(const json& message) {
  if (!message.is_object() || !message.contains("id")) return false;
  auto it = waiting_.find(message["id"].dump());
  if (it == waiting_.end() || it->second->response) return false;
  it->second->response = message;
  it->second->wake.notify_all();
  return true;
}

void client_requests::close() {
  closed_ = true;
  for (auto& [key, entry] : waiting_) entry->wake.notify_all();
}

}  // namespace harness::mcp_server
