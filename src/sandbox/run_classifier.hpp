// Turns what happened to a container into a run_outcome and a clear error for
// the agent (internal; a pure function, unit-tested).
#pragma once

#include <cstdint>

#include "harness/sandbox/sandbox.hpp"

namespace harness::sandbox::detail {

struct run_facts {
  bool deadline_fired = false;
  bool oom_killed = false;
  bool pids_at_limit = false;
  bool output_over_limit = false;
  std::int64_t exit_code = 0;
};

// Sets out.outcome and out.failure. Order when several apply: OOM, pids limit,
// timeout, output limit, code error (the first is the cause the others follow from).
// Reads out.stderr_text to recognise V8's own heap limit as out of memory.
void classify(run_result& out, const run_facts& facts, const sandbox_config& config);

}  // namespace harness::sandbox::detail
