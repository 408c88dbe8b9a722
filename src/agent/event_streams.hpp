// task_event_stream over a live task (its events in memory, then waiting for
// more), over a finished one (read from the store in batches), and over one
// that runs on another replica (read from the store as it changes).
#pragma once

#include <memory>

#include "harness/agent/agent_manager.hpp"
#include "live_task.hpp"
#include "task_changes.hpp"

namespace harness::agent {

std::shared_ptr<task_event_stream> live_event_stream(std::shared_ptr<live_task> task, std::int64_t after_seq);
// With `follow` (a task unfinished on another replica) the stream lasts until
// the stored task has ended; without, it ends at the last stored event.
std::shared_ptr<task_event_stream> stored_event_stream(std::shared_ptr<store::task_store> store, std::string task_id,
                                                       std::int64_t after_seq,
                                                       std::shared_ptr<change_waiter> follow = nullptr);

}  // namespace harness::agent
