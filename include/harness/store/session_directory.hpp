// Where sessions live when several replicas share one store. A session (an
// /execute sessionId, an MCP-face session) lives in the memory of the replica
// whose sandbox holds it; the directory records that replica, so that another
// one can name it instead of opening a second session under the same id.
// Single-replica servers have none (a null pointer). The execution component
// consults it; the store's sessions table is where it lives.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "harness/core/error.hpp"

namespace harness::store {

class task_store;

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

// The session directory over the store's sessions table, held as `owner`
// with leases of `lease` (renewed by start_replica_upkeep).
std::shared_ptr<session_directory> create_session_directory(std::shared_ptr<task_store> store, std::string owner,
                                                            std::chrono::milliseconds lease);

}  // namespace harness::store
