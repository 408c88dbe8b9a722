// Builds the server's components from the resolved settings and tears them
// down in order on shutdown. Keeps app.cpp to the program's outline.
#pragma once

#include <chrono>
#include <memory>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include "harness/core/settings.hpp"
#include "harness/http/services.hpp"

namespace harness::app {

class components {
 public:
  virtual ~components() = default;
  // What route handlers use.
  virtual http::services& services() = 0;
  // Logs what start-up decided that an operator must know (which callers may
  // act as whom). Called once the server listens, so a failed start prints
  // only its one error line.
  virtual void announce() const = 0;
  // The HTTP listener's port, once bound (OAuth's default redirect URI uses it).
  virtual void listening_on(unsigned short port) = 0;
  // Ends running tasks as "interrupted" (waiting up to `grace`), so requests
  // waiting on them can answer before the HTTP server drains.
  virtual boost::asio::awaitable<void> interrupt_tasks(std::chrono::milliseconds grace) = 0;
  // Ends tasks and sessions, empties the warm pool, removes every container we own.
  virtual boost::asio::awaitable<void> shutdown() = 0;
};

// Fails on an invalid setting. A Docker engine that does not answer is not a
// failure: the server starts degraded and /health says why.
result<std::unique_ptr<components>> build_components(boost::asio::io_context& io, const core::settings& settings);

}  // namespace harness::app
