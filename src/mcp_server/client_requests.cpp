#include "client_requests.hpp"

#include "jsonrpc.hpp"

namespace harness::mcp_server {

using json = nlohmann::json;

boost::asio::awaitable<client_requests::reply> client_requests::ask(std::string method, json params, send_fn send,
                                                                    core::steady_time deadline) {
  if (closed_ || !send) co_return reply{std::nullopt, true};
  // Ids of our own, never like a client's: "harness-<n>".
  const json id = "harness-" + std::to_string(++next_id_);
  const std::string key = id.dump();
  auto entry = std::make_shared<waiting>(executor_, clock_);
  waiting_[key] = entry;
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", std::move(method)}, {"params", std::move(params)}});
  while (!entry->response && !entry->cancelled && !closed_) {
    const bool woken = co_await entry->wake.wait_until(deadline);  // a named local: GCC 12
    if (!woken) break;
  }
  waiting_.erase(key);
  if (!entry->response) {
    send(jsonrpc::notification("notifications/cancelled",
                               {{"requestId", id}, {"reason", "no answer is needed any more; the call was denied"}}));
  }
  co_return reply{std::move(entry->response), entry->cancelled || closed_};
}

void client_requests::cancel_waiting() {
  for (auto& [key, entry] : waiting_) {
    entry->cancelled = true;
    entry->wake.notify_all();
  }
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
