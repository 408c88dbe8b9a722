// Where the tool policy in force comes from: TOOL_POLICY_FILE, followed while
// the server runs (a change is picked up within a second; a bad new version
// is logged and shown in /health while the last good policy stays), or a
// fixed policy (none configured, and tests).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/clock.hpp"
#include "harness/core/health.hpp"
#include "harness/policy/tool_policy.hpp"

namespace harness::policy {

class policy_source {
 public:
  virtual ~policy_source() = default;
  // The policy in force; never null. Thread-safe.
  virtual std::shared_ptr<const tool_policy> current() = 0;
  // "policy" in /health: the file, its rules, the last reload's error.
  virtual std::shared_ptr<const core::health_source> health() const = 0;
};

struct policy_file_options {
  std::vector<std::string> known_kinds{};  // the censor's detector names
  approval_default fallback = approval_default::never;
  std::chrono::milliseconds check_interval{1000};
};

// Reads `path` now: a missing, unreadable or invalid file is an error
// (invalid_policy naming the file and what is wrong), which stops start-up.
// `clock` times the once-a-check_interval look at the file; it must outlive the source.
result<std::shared_ptr<policy_source>> open_policy_file(const std::filesystem::path& path, core::clock& clock,
                                                        policy_file_options options);

// Always `policy` (no file).
std::shared_ptr<policy_source> fixed_policy(tool_policy policy = {});

}  // namespace harness::policy
