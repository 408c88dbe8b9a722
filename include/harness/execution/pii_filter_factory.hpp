// The one maker of the data filter between a sandbox and the tools (the PII
// censor with its owner's vault, and the tool policy): the app builds it once
// and hands it to the agent, for its tasks, and to the execution service, for
// /execute and MCP-face sessions, so both get the same censor, detection
// counts and policy.
#pragma once

#include <functional>
#include <memory>

#include "harness/core/metrics.hpp"
#include "harness/pii/pii_censor.hpp"
#include "harness/pii/pii_vault.hpp"
#include "harness/policy/call_guard.hpp"

namespace harness::execution {

class pii_filter;  // data_path.hpp

// A fresh call guard of the tool policy for each filter, for the calls of
// `who`; empty: no policy.
using guard_factory = std::function<std::unique_ptr<policy::call_guard>(const policy::caller_identity& who)>;

// Immutable after construction: make() may be called from any owner.
class pii_filter_factory {
 public:
  // `censor` must not be null; `metrics` null: detections are not counted.
  pii_filter_factory(std::shared_ptr<const pii::pii_censor> censor, std::shared_ptr<core::metrics_registry> metrics,
                     guard_factory guards);

  // A filter over `vault`, the owner's own (a task's conversation vault, or a
  // fresh one per session so tokens never leak between sessions), with a
  // call guard of its own: a policy's per-task limits count that owner's calls.
  // `who`: the user (and role) its calls are made for, as the policy's rules see them.
  std::shared_ptr<pii_filter> make(std::shared_ptr<pii::pii_vault> vault, const policy::caller_identity& who) const;

 private:
  std::shared_ptr<const pii::pii_censor> censor_;
  std::shared_ptr<core::metrics_registry> metrics_;
  guard_factory guards_;
};

}  // namespace harness::execution
