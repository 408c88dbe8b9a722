#include "run_classifier.hpp"

#include <fmt/format.h>

#include "harness/sandbox/errors.hpp"

namespace harness::sandbox::detail {

void classify(run_result& out, const run_facts& facts, const sandbox_config& config) {
  const bool heap_limit =
      facts.exit_code != 0 && out.stderr_text.find("JavaScript heap out of memory") != std::string::npos;
  if (facts.oom_killed || heap_limit) {
    out.outcome = run_outcome::out_of_memory;
    out.failure =
        make_error(sandbox::errc::oom,
                   fmt::format("the code block ran out of memory (limit {} MB) and was killed", config.memory_mb),
                   "process the data in smaller pieces or stream it");
  } else if (facts.pids_at_limit) {
    out.outcome = run_outcome::pids_limit;
    out.failure = make_error(
        sandbox::errc::pids_limit,
        fmt::format("the code block reached the limit of {} processes/threads and was stopped", config.pids_limit),
        "do not start processes in a loop");
  } else if (facts.deadline_fired) {
    out.outcome = run_outcome::timeout;
    out.failure =
        make_error(sandbox::errc::timeout,
                   fmt::format("the code block ran longer than {} ms and was stopped", config.timeout.count()),
                   "make the code faster or split the work into several blocks");
  } else if (facts.output_over_limit) {
    out.outcome = run_outcome::output_limit;
    out.failure =
        make_error(sandbox::errc::output_limit,
                   fmt::format("the code block printed more than {} bytes; the output was cut and the block stopped",
                               config.output_limit_bytes),
                   "print a summary instead of whole data sets");
  } else if (facts.exit_code != 0) {
    out.outcome = run_outcome::code_error;
    out.failure =
        make_error(sandbox::errc::code_error, fmt::format("the code block failed (exit code {})", facts.exit_code),
                   "see stderr for the error");
  } else {
    out.outcome = run_outcome::ok;
    out.failure.reset();
  }
}

}  // namespace harness::sandbox::detail
