// A scripted llm_provider for unit tests of the agent: each complete() takes
// the next step of the script. A step answers at once (a final text, a code
// block, an error) or holds the call until the test releases it or the
// caller cancels it, as a slow model would. An empty script answers
// replay_exhausted.
#pragma once

#include <deque>
#include <list>
#include <memory>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/llm/errors.hpp"
#include "harness/llm/provider.hpp"

namespace harness::agent::testing {

class fake_llm final : public llm::llm_provider {
 public:
  // Every request, in order.
  std::vector<llm::llm_request> requests;
  // Calls waiting in a held step now.
  int holding() const { return static_cast<int>(held_.size()); }

  void push_answer(std::string text, llm::token_usage usage = {10, 5}) {
    llm::llm_turn turn;
    turn.text = std::move(text);
    turn.usage = usage;
    turn.stop_reason = "stop";
    script_.push_back({turn, false, false});
  }
  void push_code(std::string code, llm::token_usage usage = {10, 5}) {
    llm::llm_turn turn;
    turn.tool_calls.push_back(
        {"call_" + std::to_string(++calls_), llm::execute_code_tool().name, {{"code", std::move(code)}}, false});
    turn.usage = usage;
    turn.stop_reason = "tool_calls";
    script_.push_back({turn, false, false});
  }
  void push_error(harness::error_code code) {
    script_.push_back({make_error(code, "the fake LLM failed"), false, false});
  }
  // Holds the call until release_held() (then answers `text`) or until the
  // caller cancels it ("cancelled"). With ignore_cancel, only release_held() ends it.
  void push_hold(std::string text = "held answer", bool ignore_cancel = false) {
    llm::llm_turn turn;
    turn.text = std::move(text);
    turn.stop_reason = "stop";
    script_.push_back({turn, true, ignore_cancel});
  }
  // Ends every held call with its scripted answer.
  void release_held() {
    for (auto* timer : held_) timer->cancel();
    released_ = true;
  }

  boost::asio::awaitable<result<llm::llm_turn>> complete(llm::llm_request request) override {
    requests.push_back(std::move(request));
    if (script_.empty()) co_return make_error(harness::llm::errc::replay_exhausted, "the fake LLM's script has ended");
    auto next = std::move(script_.front());
    script_.pop_front();
    if (!next.hold) co_return next.answer;
    if (next.ignore_cancel) {
      co_await boost::asio::this_coro::reset_cancellation_state(
          [](boost::asio::cancellation_type) { return boost::asio::cancellation_type::none; });
    }
    released_ = false;
    boost::asio::steady_timer wake(co_await boost::asio::this_coro::executor,
                                   boost::asio::steady_timer::time_point::max());
    auto it = held_.insert(held_.end(), &wake);
    co_await wake.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    held_.erase(it);
    if (!released_) co_return make_error(harness::core::errc::cancelled, "the call was cancelled");
    co_return next.answer;
  }

  std::string name() const override { return "fake"; }

 private:
  struct step {
    result<llm::llm_turn> answer;
    bool hold = false;
    bool ignore_cancel = false;
  };
  std::deque<step> script_;
  std::list<boost::asio::steady_timer*> held_;
  bool released_ = false;
  int calls_ = 0;
};

}  // namespace harness::agent::testing
