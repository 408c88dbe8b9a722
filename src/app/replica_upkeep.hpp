// What a replica does for the others when several share one store
// (STORE_URL): it keeps the leases of its own unfinished tasks and held
// sessions, marks the tasks of a replica that stopped renewing interrupted,
// and records its sessions in the store's session directory.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "harness/execution/session_directory.hpp"
#include "harness/store/task_store.hpp"

namespace harness::app {

// Every third of `lease`, at once first: renew_leases(owner, now + lease),
// then mark_interrupted(now - lease) for the leases that lapsed a lease ago
// (room for clocks that differ), but only once this replica's own renewals
// have worked for a whole lease (after start-up or a failed renewal, the other
// replicas get that long to renew theirs). The returned function stops it;
// call it on `executor`'s thread before the io_context goes away.
std::function<void()> start_replica_upkeep(const boost::asio::any_io_executor& executor,
                                           std::shared_ptr<store::task_store> store, std::string owner,
                                           std::chrono::milliseconds lease);

// The session directory over the store's sessions table, held as `owner`
// with leases of `lease` (renewed by the upkeep above).
std::shared_ptr<execution::session_directory> store_session_directory(std::shared_ptr<store::task_store> store,
                                                                      std::string owner,
                                                                      std::chrono::milliseconds lease);

}  // namespace harness::app
