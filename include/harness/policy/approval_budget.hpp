// How long the code of one task (or MCP session) may keep waiting for people.
// While a call waits, its block's and task's limits stand still and the code
// may keep running, so waiting needs bounds of its own: at most max_waiting
// calls at once, and four approval timeouts of waiting in all.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace harness::policy {

class approval_budget {
 public:
  static constexpr std::size_t max_waiting = 8;

  explicit approval_budget(std::chrono::milliseconds timeout) : limit_(4 * timeout) {}

  // Why another wait may not begin now (`owner`: "this task"), or nullopt.
  std::optional<std::string> refusal(std::size_t waiting_now, std::string_view owner) const {
    if (waiting_now >= max_waiting) {
      return fmt::format("{} calls of {} already wait for a decision, the most at once", waiting_now, owner);
    }
    if (waited_ >= limit_) {
      return fmt::format("{} has waited {} s for decisions in all, its limit (4 x APPROVAL_TIMEOUT_MS)", owner,
                         std::chrono::duration_cast<std::chrono::seconds>(waited_).count());
    }
    return std::nullopt;
  }

  // A wait has ended after `waited`.
  void spent(std::chrono::nanoseconds waited) { waited_ += waited; }

 private:
  std::chrono::nanoseconds limit_;
  std::chrono::nanoseconds waited_{0};
};

}  // namespace harness::policy
