#include "sse.hpp"

#include <fmt/format.h>

namespace harness::http {
namespace {

// Proxies drop connections that stay silent; a comment every few seconds keeps it open.
constexpr auto keep_alive_every = std::chrono::seconds(10);

class sse_stream final : public body_stream {
 public:
  explicit sse_stream(std::shared_ptr<agent::task_event_stream> events) : events_(std::move(events)) {}

  boost::asio::awaitable<std::optional<std::string>> next() override {
    auto event = co_await events_->next(keep_alive_every);
    if (!event) co_return std::nullopt;
    if (event->type.empty()) co_return std::string(": keep-alive\n\n");
    // JSON text has no raw newlines, so one data line carries it.
    co_return fmt::format("id: {}\nevent: {}\ndata: {}\n\n", event->seq, event->type,
                          event->data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }

 private:
  std::shared_ptr<agent::task_event_stream> events_;
};

}  // namespace

http_response sse_response(std::shared_ptr<agent::task_event_stream> events, unsigned status) {
  http_response response;
  response.status = status;
  response.set_header("Content-Type", "text/event-stream; charset=utf-8");
  response.set_header("Cache-Control", "no-cache");
  response.set_header("X-Accel-Buffering", "no");  // nginx: do not buffer the stream
  response.stream = std::make_shared<sse_stream>(std::move(events));
  return response;
}

}  // namespace harness::http
