#include "harness/store/replica_upkeep.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/periodic_job.hpp"

namespace harness::store {
namespace {

namespace asio = boost::asio;

// One round: renew this replica's leases, then (once its renewals have worked
// for a whole lease) mark the tasks of lapsed leases interrupted.
struct upkeep_round {
  std::shared_ptr<task_store> store;
  std::string owner;
  std::chrono::milliseconds lease;
  core::clock& clock;
  // When this replica's renewals have worked since (0: not since the last
  // failure). After an outage every replica's leases may have lapsed: the
  // sweep waits a whole lease from then, so the others renew theirs first.
  std::int64_t renewing_since = 0;

  asio::awaitable<void> run();
};

asio::awaitable<void> upkeep_round::run() {
  {
    const auto now = clock.epoch_ms();
    std::string me = owner;  // locals, not temporaries, in co_await (GCC 12)
    auto renewed = co_await store->renew_leases(std::move(me), now + lease.count());
    if (!renewed) core::log_warn("leases of replica {} not renewed: {}", owner, renewed.error().describe());
    renewing_since = !renewed ? 0 : renewing_since == 0 ? now : renewing_since;
    if (renewing_since != 0 && now - renewing_since >= lease.count()) {
      // A lease counts as lapsed a whole lease after its end: clocks of
      // replicas may differ by less than that without harm.
      std::string anyone;
      auto lapsed = co_await store->mark_interrupted(now - lease.count(), std::move(anyone));
      if (!lapsed) core::log_warn("tasks with lapsed leases not checked: {}", lapsed.error().describe());
      if (lapsed) {
        for (const auto& id : *lapsed) core::log_warn("task {} marked interrupted: its replica stopped renewing", id);
      }
    }
  }
}

}  // namespace

result<std::shared_ptr<task_store>> open_task_store(const store_config& config, const std::string& owner) {
  auto backend = open_blocking_store(config);
  if (!backend) return backend.error();
  // A shared store: only this replica's own tasks now; others' lapsed leases
  // are the replica upkeep's, which gives them time to renew first.
  const std::int64_t lapsed_before = (*backend)->shared() ? 0 : core::real_clock().epoch_ms();
  auto interrupted = (*backend)->mark_interrupted(lapsed_before, owner);
  if (!interrupted) {
    core::log_warn("could not mark tasks of an earlier run as interrupted: {}", interrupted.error().describe());
  } else if (!interrupted->empty()) {
    core::log_info("{} task(s) of an earlier run were marked interrupted", interrupted->size());
  }
  return run_on_store_thread(std::move(*backend));
}

std::function<void()> start_replica_upkeep(const asio::any_io_executor& executor, core::clock& clock,
                                           std::shared_ptr<task_store> store, std::string owner,
                                           std::chrono::milliseconds lease) {
  auto round = std::make_shared<upkeep_round>(upkeep_round{std::move(store), std::move(owner), lease, clock});
  auto job = std::make_shared<core::periodic_job>(executor, clock, "replica upkeep");
  job->start(
      std::chrono::duration_cast<std::chrono::milliseconds>(lease / 3), [round] { return round->run(); },
      core::periodic_job::first_tick::at_once);
  return [job] { job->stop(); };
}

}  // namespace harness::store
