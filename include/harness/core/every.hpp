// A component's background sweep: calls tick() every `interval` until `stop`
// turns true or the timer is cancelled (shutdown does both). The one copy of
// the timer loop that session tables (execution sessions, MCP sessions) run.
#pragma once

#include <chrono>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace harness::core {

// `timer` and `stop` must outlive the loop: the component keeps itself alive
// across it. Pass `tick` as a named object, never a lambda temporary (GCC 12,
// see run_blocking.hpp).
template <class Tick>
boost::asio::awaitable<void> every(boost::asio::steady_timer& timer, std::chrono::milliseconds interval,
                                   const bool& stop, Tick& tick) {
  while (!stop) {
    timer.expires_after(interval);
    auto [ec] = co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec || stop) break;
    tick();
  }
}

}  // namespace harness::core
