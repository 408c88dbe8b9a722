#include "harness/mcp_server/event_stream.hpp"

#include <charconv>

#include <fmt/format.h>

namespace harness::mcp_server {
namespace {

using json = nlohmann::json;

// How long a client waits before it reconnects a dropped stream (SSE's
// `retry` field): a resumption soon after the drop, not a storm.
constexpr int reconnect_delay_ms = 1000;

std::optional<std::uint64_t> decimal(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;  // 19 digits always fit in 64 bits
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<event_id> parse_event_id(std::string_view text) {
  auto dash = text.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto stream = decimal(text.substr(0, dash));
  auto seq = decimal(text.substr(dash + 1));
  if (!stream || !seq) return std::nullopt;
  return event_id{*stream, *seq};
}

event_stream::event_stream(const boost::asio::any_io_executor& executor, core::clock& clock, std::uint64_t number)
    : clock_(clock), number_(number), wake_(executor, clock) {}

void event_stream::push(const json& message) {
  if (finished_) return;
  ++last_seq_;
  kept_.push_back({last_seq_, fmt::format("id: {}-{}\nevent: message\ndata: {}\n\n", number_, last_seq_,
                                          message.dump(-1, ' ', false, json::error_handler_t::replace))});
  if (kept_.size() > max_kept) kept_.pop_front();
  wake_.notify_all();
}

void event_stream::finish() {
  if (finished_) return;
  finished_ = true;
  finished_at_ = clock_.steady_now();
  wake_.notify_all();
}

boost::asio::awaitable<std::optional<event_stream::event>> event_stream::next_after(std::uint64_t seq) {
  for (;;) {
    for (const auto& e : kept_) {
      if (e.seq > seq) co_return e;
    }
    if (finished_) co_return std::nullopt;
    co_await wake_.wait();
  }
}

std::string event_stream::priming_event() const {
  return fmt::format("id: {}-0\nretry: {}\ndata:\n\n", number_, reconnect_delay_ms);
}

std::shared_ptr<event_stream> event_stream_table::open() {
  prune();
  auto stream = std::make_shared<event_stream>(executor_, clock_, next_++);
  streams_.emplace(stream->number(), stream);
  return stream;
}

std::shared_ptr<event_stream> event_stream_table::find(std::uint64_t number) const {
  auto it = streams_.find(number);
  return it == streams_.end() ? nullptr : it->second;
}

// Forgets finished streams past their retention, then the oldest finished
// ones beyond max_finished. A stream still running is always kept: its
// request is in flight and finishes it when it ends.
void event_stream_table::prune() {
  const auto now = clock_.steady_now();
  std::size_t finished = 0;
  for (auto it = streams_.begin(); it != streams_.end();) {
    if (it->second->finished() && now - it->second->finished_at() > retain) {
      it = streams_.erase(it);
    } else {
      finished += it->second->finished() ? 1 : 0;
      ++it;
    }
  }
  for (auto it = streams_.begin(); it != streams_.end() && finished >= max_finished;) {
    if (it->second->finished()) {
      it = streams_.erase(it);
      --finished;
    } else {
      ++it;
    }
  }
}

}  // namespace harness::mcp_server
