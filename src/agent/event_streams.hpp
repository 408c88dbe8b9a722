// task_event_stream over a live task (its events in memory, then waiting for
// more) and over a finished one (read from the store in batches).
#pragma once

#include <memory>

#include "harness/agent/agent_manager.hpp"
#include "live_task.hpp"

namespace harness::agent {

std::shared_ptr<task_event_stream> live_event_stream(std::shared_ptr<live_task> task, std::int64_t after_seq);
std::shared_ptr<task_event_stream> stored_event_stream(std::shared_ptr<store::task_store> store, std::string task_id,
                                                       std::int64_t after_seq);

}  // namespace harness::agent
