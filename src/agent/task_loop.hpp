// Runs one admitted task to its end: the turn loop, the sandbox, the events,
// and the final record in the store.
#pragma once

#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "harness/agent/agent_manager.hpp"
#include "live_task.hpp"

namespace harness::agent {

struct loop_context {
  boost::asio::any_io_executor executor;
  const agent_dependencies& deps;
  const agent_config& config;
  core::clock& clock;
};

// Never throws; always leaves the task finished, recorded and its sandbox removed.
boost::asio::awaitable<void> run_task(loop_context context, std::shared_ptr<live_task> task);

// Ends a task that never ran (cancelled or interrupted while queued): it is
// finished in memory at once, then stored.
boost::asio::awaitable<void> finish_unstarted(loop_context context, std::shared_ptr<live_task> task,
                                              task_status status);

}  // namespace harness::agent
