// Helpers shared by the llm tests.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include <chrono>
#include <functional>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/llm/config.hpp"
#include "harness/llm/provider.hpp"
#include "harness/llm/types.hpp"

namespace harness::llm::test {

// Runs one awaitable to completion on a fresh io_context and returns its value.
template <class T>
T run_sync(boost::asio::awaitable<T> op) {
  boost::asio::io_context ioc;
  std::optional<T> out;
  boost::asio::co_spawn(
      ioc, [&]() -> boost::asio::awaitable<void> { out.emplace(co_await std::move(op)); }, boost::asio::detached);
  ioc.run();
  return std::move(*out);
}

// Runs provider.complete(request) in a coroutine spawned with a cancellation
// slot, as the agent runs a task, and emits terminal cancellation once
// ready() says the call is in flight (polled every few ms on the same
// io_context). Returns what complete() returned.
inline std::optional<result<llm_turn>> complete_then_cancel(llm_provider& provider, const llm_request& request,
                                                            std::function<bool()> ready) {
  namespace asio = boost::asio;
  asio::io_context ioc;
  asio::cancellation_signal signal;
  std::optional<result<llm_turn>> out;
  asio::co_spawn(
      ioc, [&]() -> asio::awaitable<void> { out.emplace(co_await provider.complete(request)); },
      asio::bind_cancellation_slot(signal.slot(), asio::detached));
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        asio::steady_timer poll(ioc);
        do {
          poll.expires_after(std::chrono::milliseconds(2));
          co_await poll.async_wait(asio::use_awaitable);
        } while (!ready());
        signal.emit(asio::cancellation_type::terminal);
      },
      asio::detached);
  ioc.run();
  return out;
}

// A config with fast retries, for tests.
inline llm_config test_config(const std::string& provider, const std::string& base_url) {
  llm_config c;
  c.provider = provider;
  c.model = provider == "anthropic" ? "claude-test" : "gpt-test";
  c.api_key = "sk-test-SECRET-0123456789";
  c.base_url = base_url;
  c.timeout = std::chrono::milliseconds(10000);
  c.deadline = std::chrono::milliseconds(30000);
  c.retry.max_retries = 2;
  c.retry.base_delay = std::chrono::milliseconds(1);
  c.retry.max_delay = std::chrono::milliseconds(5);
  return c;
}

// system + user, offering execute_code.
inline llm_request simple_request(const std::string& task = "count the files") {
  llm_request r;
  r.messages.push_back({message_role::system, "You write JavaScript.", {}, "", false, false});
  r.messages.push_back({message_role::user, task, {}, "", false, false});
  r.tools.push_back(execute_code_tool());
  return r;
}

}  // namespace harness::llm::test
