// Gives a task its approval desk: a call of its code that the tool policy
// asks about shows in the task's events (approval_requested, then
// approval_decided) and status (awaiting_approval while any waits), and holds
// the task's wall-clock limit while it waits.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "harness/core/clock.hpp"
#include "live_task.hpp"

namespace harness::agent {

// `save` writes the task's record when its status changes; `clock` must
// outlive the task. Sets task->approvals and the filter's approver.
void attach_approvals(const std::shared_ptr<live_task>& task, core::clock& clock, std::chrono::milliseconds timeout,
                      std::function<void(const store::task_record&)> save);

}  // namespace harness::agent
