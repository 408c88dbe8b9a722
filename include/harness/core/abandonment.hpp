// "The caller gave up on this request": fired once by the transport that
// carried the request (an HTTP client of MCP 2026-07-28 closed its
// connection, which that era makes the request's cancellation), heard by the
// work serving it, which registers what stops it. Use it on one executor (not
// thread-safe); share it between the two sides with a shared_ptr.
#pragma once

#include <functional>
#include <utility>

namespace harness::core {

class abandonment {
 public:
  // What to run when the caller goes away (at once if it is gone already).
  // One at a time: a later call replaces the earlier one.
  void on_abandon(std::function<void()> stop) {
    if (fired_) {
      if (stop) stop();
      return;
    }
    stop_ = std::move(stop);
  }
  // The request was answered: its caller leaving now stops nothing.
  void clear() { stop_ = nullptr; }
  void fire() {
    if (fired_) return;
    fired_ = true;
    if (auto stop = std::exchange(stop_, nullptr)) stop();
  }
  bool fired() const { return fired_; }

 private:
  std::function<void()> stop_;
  bool fired_ = false;
};

}  // namespace harness::core
