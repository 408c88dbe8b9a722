// A fault-injecting fake transport for unit tests: answers each send with
// the next scripted outcome (a response, a transport error, or "hang" until
// cancelled) and records what it was asked to send.
#pragma once

#include <chrono>
#include <deque>
#include <variant>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/llm/errors.hpp"
#include "harness/llm/http_transport.hpp"

namespace harness::llm::test {

struct hang {};

class scripted_transport final : public http_transport {
 public:
  using outcome = std::variant<harness::net::response, harness::error, hang>;

  void push(outcome o) { script_.push_back(std::move(o)); }
  void push_json(long status, const std::string& body, harness::net::header_list headers = {}) {
    harness::net::response r;
    r.status = status;
    r.headers = std::move(headers);
    r.body = body;
    push(std::move(r));
  }
  const std::vector<harness::net::request>& sent() const { return sent_; }

  boost::asio::awaitable<result<harness::net::response>> send(harness::net::request request) override {
    sent_.push_back(request);
    if (script_.empty())
      co_return make_error(harness::llm::errc::connection_failed, "scripted transport: nothing scripted");
    outcome next = std::move(script_.front());
    script_.pop_front();
    if (auto* r = std::get_if<harness::net::response>(&next)) co_return *r;
    if (auto* e = std::get_if<harness::error>(&next)) co_return *e;
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, std::chrono::hours(1));
    auto [ec] = co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    co_return make_error(harness::core::errc::cancelled, ec ? "cancelled while hanging" : "hang ended");
  }

 private:
  std::deque<outcome> script_;
  std::vector<harness::net::request> sent_;
};

}  // namespace harness::llm::test
