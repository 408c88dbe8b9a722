// The leases of tasks and sessions: what a replica does with them at start-up
// (open_task_store) and, when several share one store (STORE_URL), while it
// runs (start_replica_upkeep): it keeps the leases of its own unfinished tasks
// and held sessions, and marks the tasks of a replica that stopped renewing
// interrupted.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "harness/core/clock.hpp"
#include "harness/store/store_config.hpp"
#include "harness/store/task_store.hpp"

namespace harness::store {

// Opens the store at start-up (SQLite, or PostgreSQL when STORE_URL is set;
// blocking: nothing is served yet), marks as interrupted the unfinished tasks
// of `owner` (this replica's SANDBOX_OWNER: its tasks of an earlier run died
// with it) and those whose lease expired, and hands the store to its own thread.
result<std::shared_ptr<task_store>> open_task_store(const store_config& config, const std::string& owner);

// Every third of `lease`, at once first: renew_leases(owner, now + lease),
// then mark_interrupted(now - lease) for the leases that lapsed a lease ago
// (room for clocks that differ), but only once this replica's own renewals
// have worked for a whole lease (after start-up or a failed renewal, the other
// replicas get that long to renew theirs). A periodic_job on `clock`; the
// returned function stops it: call it on `executor`'s thread before the
// io_context goes away.
std::function<void()> start_replica_upkeep(const boost::asio::any_io_executor& executor, core::clock& clock,
                                           std::shared_ptr<task_store> store, std::string owner,
                                           std::chrono::milliseconds lease);

}  // namespace harness::store
