// Where sessions live when several replicas share one store. A session (an
// /execute sessionId, an MCP-face session) lives in the memory of the replica
// whose sandbox holds it; the directory records that replica, so that another
// one can name it instead of opening a second session under the same id.
// Single-replica servers have none (a null pointer).
#pragma once

#include <string>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"

namespace harness::execution {

class session_directory {
 public:
  virtual ~session_directory() = default;

  // This replica's name (its SANDBOX_OWNER).
  virtual const std::string& self() const = 0;
  // Records this replica as the holder of `key`, unless another replica holds
  // it and keeps renewing it; returns the holder afterwards (self() when this
  // replica may open the session).
  virtual boost::asio::awaitable<result<std::string>> hold(std::string key) = 0;
  // The session ended here: forgets it if this replica holds it.
  virtual boost::asio::awaitable<void> release(std::string key) = 0;
  // The replica that holds `key` now; empty when none does.
  virtual boost::asio::awaitable<result<std::string>> holder(std::string key) = 0;
};

// The error for a session another replica holds (HTTP 421): names the replica.
error session_elsewhere(const std::string& session_id, const std::string& replica);

}  // namespace harness::execution
