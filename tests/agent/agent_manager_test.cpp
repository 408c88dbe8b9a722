// agent_manager driven by fakes (store, LLM, sandboxes) and a fake clock:
// admission, the queue, cancellation, every way a task ends, and shutdown.
// Time moves only when a test advances the clock; no test sleeps or times anything.
#include <future>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "agent/fake_llm.hpp"
#include "agent/fake_sandbox.hpp"
#include "agent/fake_task_store.hpp"
#include "bridge/fake_tools.hpp"
#include "harness/agent/agent_manager.hpp"
#include "harness/agent/errors.hpp"
#include "harness/execution/pii_filter_factory.hpp"
#include "harness/pii/pii_censor.hpp"
#include "harness/store/errors.hpp"
#include "support/drive_io.hpp"
#include "support/fake_clock.hpp"

namespace harness::agent {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using testing::fake_llm;
using testing::fake_pool;
using testing::fake_task_store;

class AgentManager : public ::testing::Test {
 protected:
  AgentManager() {
    config.max_concurrent = 2;
    config.queue_size = 1;
    config.max_per_user = 2;
    config.max_turns = 4;
    config.token_budget = 1000;
    config.task_timeout = 60s;
    config.exec_timeout = 10s;
  }

  ~AgentManager() override {
    if (manager) {
      auto stop = manager->shutdown(0ms);
      run(std::move(stop));
    }
    settle();
  }

  void start() {
    agent_dependencies deps;
    deps.llm = llm;
    deps.pool = pool;
    deps.tools = std::make_shared<bridge::testing::fake_tools>();
    auto censor = pii::pii_censor_builder().build();
    EXPECT_TRUE(censor) << censor.error().describe();
    deps.censor = std::make_shared<const pii::pii_censor>(std::move(*censor));
    deps.filters = std::make_shared<const execution::pii_filter_factory>(deps.censor, nullptr, nullptr);
    deps.store = store;
    deps.on_task_end = [this](task_status s) { ended.push_back(s); };
    manager = create_agent_manager(io.get_executor(), std::move(deps), config, clock);
  }

  void settle() { harness::testing::settle(io); }
  template <class T>
  std::future<T> spawn(asio::awaitable<T> work) {
    return harness::testing::spawn(io, std::move(work));
  }
  template <class T>
  T run(asio::awaitable<T> work) {
    return harness::testing::run_now(io, std::move(work));
  }

  result<task_ticket> submit(const std::string& user, const std::string& text = "do it",
                             std::optional<std::string> conversation = std::nullopt) {
    task_request r;
    r.user_id = user;
    r.task = text;
    r.mode = "async";
    r.conversation_id = std::move(conversation);
    return run(manager->submit(std::move(r)));
  }

  task_view view(const std::string& id, bool transcript = false) {
    auto v = run(manager->view(id, transcript));
    EXPECT_TRUE(v) << v.error().describe();
    return v ? *v : task_view{};
  }

  task_status status_of(const std::string& id) { return view(id).status; }

  // The code of the error a task ended with.
  std::string error_code(const std::string& id) { return view(id).error.value("code", std::string()); }

  asio::io_context io;
  harness::testing::fake_clock clock;
  std::shared_ptr<fake_llm> llm = std::make_shared<fake_llm>();
  std::shared_ptr<fake_pool> pool = std::make_shared<fake_pool>(io.get_executor());
  std::shared_ptr<fake_task_store> store = std::make_shared<fake_task_store>();
  agent_config config;
  std::shared_ptr<agent_manager> manager;
  std::vector<task_status> ended;
};

TEST_F(AgentManager, ACodeBlockThenAnAnswerSucceedsAndRemovesTheSandbox) {
  start();
  llm->push_code("return 6 * 7");
  llm->push_answer("the answer is 42");
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket) << ticket.error().describe();
  auto done = run(manager->wait(ticket->task_id));
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_EQ(done->status, task_status::succeeded);
  EXPECT_EQ(done->result, "the answer is 42");
  EXPECT_EQ(done->user_id, "alice");
  EXPECT_EQ(done->turns, 2);
  EXPECT_EQ(done->input_tokens, 20);
  EXPECT_EQ(done->output_tokens, 10);
  EXPECT_EQ(pool->count().claims, 1);
  EXPECT_EQ(pool->count().execs, 1);
  EXPECT_EQ(pool->count().alive, 0);
  EXPECT_EQ(ended, std::vector<task_status>{task_status::succeeded});
  // The second request carries the block's observation.
  ASSERT_EQ(llm->requests.size(), 2u);
  EXPECT_NE(llm->requests[1].messages.back().text.find("ran: return 6 * 7"), std::string::npos);

  // Stored: the record, its timestamps from the clock, its events ending with "end".
  const auto& stored = store->tasks.at(ticket->task_id);
  EXPECT_EQ(stored.status, task_status::succeeded);
  EXPECT_EQ(stored.created_ms, clock.epoch_ms());
  EXPECT_EQ(stored.finished_ms, clock.epoch_ms());
  ASSERT_FALSE(store->events_of[ticket->task_id].empty());
  EXPECT_EQ(store->events_of[ticket->task_id].back().type, "end");
  EXPECT_EQ(store->conversations.count(ticket->conversation_id), 1u);
  EXPECT_EQ(store->usage_rows, 2);
  // Once it ended, the view comes from the store, transcript and all.
  auto later = view(ticket->task_id, true);
  EXPECT_EQ(later.status, task_status::succeeded);
  ASSERT_TRUE(later.transcript);
  EXPECT_TRUE(later.transcript->is_array());
}

TEST_F(AgentManager, AnLlmFailureEndsTheTaskFailed) {
  start();
  llm->push_error(harness::llm::errc::bad_request);
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  settle();
  EXPECT_EQ(status_of(ticket->task_id), task_status::failed);
  EXPECT_EQ(error_code(ticket->task_id), "llm_bad_request");
  EXPECT_EQ(ended, std::vector<task_status>{task_status::failed});
}

TEST_F(AgentManager, NoFinalAnswerWithinMaxTurnsEndsAsMaxTurns) {
  config.max_turns = 2;
  start();
  llm->push_code("1");
  llm->push_code("2");
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  settle();
  EXPECT_EQ(status_of(ticket->task_id), task_status::max_turns);
  EXPECT_EQ(error_code(ticket->task_id), "max_turns");
  EXPECT_EQ(llm->requests.size(), 2u);
  EXPECT_EQ(pool->count().alive, 0);
}

TEST_F(AgentManager, UsingMoreTokensThanTheBudgetEndsAsBudgetExceeded) {
  config.token_budget = 20;
  start();
  llm->push_code("1", {15, 10});
  llm->push_answer("never asked for");
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  settle();
  EXPECT_EQ(status_of(ticket->task_id), task_status::budget_exceeded);
  EXPECT_EQ(error_code(ticket->task_id), "budget_exceeded");
  EXPECT_EQ(llm->requests.size(), 1u);
}

TEST_F(AgentManager, TheDeadlinePassingOnTheClockEndsTheTaskTimedOut) {
  start();
  llm->push_hold();
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  settle();
  ASSERT_EQ(llm->holding(), 1);
  clock.advance(config.task_timeout - 1ms);
  settle();
  EXPECT_EQ(status_of(ticket->task_id), task_status::running);
  clock.advance(1ms);
  settle();
  EXPECT_EQ(llm->holding(), 0);  // the call was cancelled
  EXPECT_EQ(status_of(ticket->task_id), task_status::timed_out);
  EXPECT_EQ(error_code(ticket->task_id), "task_timeout");
  EXPECT_EQ(ended, std::vector<task_status>{task_status::timed_out});
}

TEST_F(AgentManager, CancellingARunningTaskStopsItsLlmCall) {
  start();
  llm->push_hold();
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  settle();
  auto cancelled = run(manager->cancel(ticket->task_id));
  ASSERT_TRUE(cancelled) << cancelled.error().describe();
  EXPECT_EQ(cancelled->state, cancel_state::cancelling);
  settle();
  EXPECT_EQ(status_of(ticket->task_id), task_status::cancelled);
  EXPECT_EQ(error_code(ticket->task_id), "cancelled");
  auto again = run(manager->cancel(ticket->task_id));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, harness::agent::errc::task_finished);
}

TEST_F(AgentManager, CancellingATaskWhoseBlockRunsKillsTheSandbox) {
  start();
  pool->hang = true;
  llm->push_code("while (true) {}");
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  settle();
  ASSERT_EQ(pool->count().blocks_running, 1);
  ASSERT_EQ(pool->count().alive, 1);
  auto cancelled = run(manager->cancel(ticket->task_id));
  ASSERT_TRUE(cancelled);
  settle();
  EXPECT_EQ(status_of(ticket->task_id), task_status::cancelled);
  EXPECT_EQ(pool->count().alive, 0);
  EXPECT_GE(pool->count().stops, 1);
  EXPECT_EQ(llm->requests.size(), 1u);  // the block's end did not go back to the LLM
}

TEST_F(AgentManager, AQueuedTaskStartsWhenASlotFrees) {
  config.max_concurrent = 1;
  start();
  llm->push_hold("first done");
  llm->push_answer("second done");
  auto first = submit("alice");
  auto second = submit("bob");
  ASSERT_TRUE(first);
  ASSERT_TRUE(second);
  EXPECT_EQ(first->status, task_status::running);
  EXPECT_EQ(second->status, task_status::queued);
  EXPECT_EQ(manager->stats().running, 1u);
  EXPECT_EQ(manager->stats().queued, 1u);
  EXPECT_EQ(status_of(second->task_id), task_status::queued);
  llm->release_held();
  settle();
  EXPECT_EQ(status_of(first->task_id), task_status::succeeded);
  EXPECT_EQ(status_of(second->task_id), task_status::succeeded);
  EXPECT_EQ(view(second->task_id).result, "second done");
  EXPECT_EQ(manager->stats().running, 0u);
  EXPECT_EQ(manager->stats().queued, 0u);
}

TEST_F(AgentManager, CancellingAQueuedTaskEndsItAtOnce) {
  config.max_concurrent = 1;
  start();
  llm->push_hold();
  auto first = submit("alice");
  auto second = submit("bob");
  ASSERT_TRUE(second);
  ASSERT_EQ(second->status, task_status::queued);
  auto cancelled = run(manager->cancel(second->task_id));
  ASSERT_TRUE(cancelled);
  EXPECT_EQ(cancelled->state, cancel_state::cancelled);
  EXPECT_EQ(store->tasks.at(second->task_id).status, task_status::cancelled);
  EXPECT_EQ(status_of(second->task_id), task_status::cancelled);
  EXPECT_EQ(manager->stats().queued, 0u);
  EXPECT_EQ(status_of(first->task_id), task_status::running);
  EXPECT_EQ(ended, std::vector<task_status>{task_status::cancelled});
}

TEST_F(AgentManager, AUserOverTheirLimitIsBusyOthersAreNot) {
  config.max_per_user = 1;
  start();
  llm->push_hold();
  llm->push_hold();
  ASSERT_TRUE(submit("alice"));
  auto again = submit("alice");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, harness::agent::errc::user_busy);
  EXPECT_TRUE(submit("bob"));
}

TEST_F(AgentManager, AFullQueueMakesTheAgentBusy) {
  config.max_concurrent = 1;
  config.queue_size = 1;
  start();
  llm->push_hold();
  ASSERT_TRUE(submit("alice"));
  auto queued = submit("bob");
  ASSERT_TRUE(queued);
  EXPECT_EQ(queued->status, task_status::queued);
  auto refused = submit("carol");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, harness::agent::errc::agent_busy);
  EXPECT_EQ(store->tasks.size(), 2u);  // nothing stored for the refused one
}

// Busy for its own user; for another user the same answer as a missing
// conversation: "busy" would tell bob that alice's conversation exists.
TEST_F(AgentManager, AFollowUpWhileTheConversationRunsIsBusyForItsUserOnly) {
  start();
  llm->push_answer("first");
  auto first = submit("alice");
  ASSERT_TRUE(first);
  settle();
  llm->push_hold();
  auto second = submit("alice", "and then?", first->conversation_id);
  ASSERT_TRUE(second) << second.error().describe();
  auto third = submit("alice", "and also?", first->conversation_id);
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().code, harness::agent::errc::conversation_busy);
  auto missing = submit("alice", "x", std::string("conv_none"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, harness::agent::errc::conversation_not_found);
  auto probe = submit("bob", "me too", first->conversation_id);
  ASSERT_FALSE(probe);
  EXPECT_EQ(probe.error().code, harness::agent::errc::conversation_not_found);
  EXPECT_EQ(probe.error().message, "there is no conversation '" + first->conversation_id + "'");
  EXPECT_EQ(probe.error().hint, missing.error().hint);
}

TEST_F(AgentManager, AStoreFailureRefusesTheTaskAndHoldsNoSlot) {
  config.max_per_user = 1;
  start();
  store->fail_with = make_error(harness::store::errc::io_error, "disk I/O error");
  auto refused = submit("alice");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, harness::store::errc::io_error);
  EXPECT_EQ(manager->stats().running, 0u);
  store->fail_with.reset();
  llm->push_answer("fine");
  EXPECT_TRUE(submit("alice"));  // the failed submit left no reservation behind
}

TEST_F(AgentManager, ShutdownInterruptsQueuedAndRunningTasks) {
  config.max_concurrent = 1;
  start();
  llm->push_hold();
  auto running = submit("alice");
  auto queued = submit("bob");
  ASSERT_TRUE(running);
  ASSERT_TRUE(queued);
  auto stop = spawn(manager->shutdown(5s));
  // The running task honours the stop at once: no time needs to pass.
  EXPECT_EQ(stop.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(status_of(running->task_id), task_status::interrupted);
  EXPECT_EQ(status_of(queued->task_id), task_status::interrupted);
  EXPECT_EQ(error_code(queued->task_id), "interrupted");
  auto late = submit("carol");
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, harness::agent::errc::stopping);
  EXPECT_EQ(manager->stats().running, 0u);
  EXPECT_EQ(pool->count().alive, 0);
}

TEST_F(AgentManager, ShutdownWaitsOutTheGraceOnTheClockThenLeavesNothingBehind) {
  start();
  pool->hang = false;
  llm->push_code("return 1");
  llm->push_hold("answered late", /*ignore_cancel=*/true);
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  settle();
  ASSERT_EQ(llm->holding(), 1);
  ASSERT_EQ(pool->count().alive, 1);  // the task's sandbox stays while it runs

  auto stop = spawn(manager->shutdown(5s));
  EXPECT_EQ(stop.wait_for(0s), std::future_status::timeout);
  clock.advance(4999ms);
  settle();
  EXPECT_EQ(stop.wait_for(0s), std::future_status::timeout);
  clock.advance(1ms);
  settle();
  EXPECT_EQ(stop.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(manager->stats().running, 1u);  // the grace is over, the call still hangs

  // When the call finally returns, the task ends interrupted and its sandbox goes.
  llm->release_held();
  settle();
  EXPECT_EQ(status_of(ticket->task_id), task_status::interrupted);
  EXPECT_EQ(manager->stats().running, 0u);
  EXPECT_EQ(pool->count().alive, 0);
  EXPECT_EQ(ended, std::vector<task_status>{task_status::interrupted});
}

TEST_F(AgentManager, ViewsAndListsAreStructsWithTheOwner) {
  start();
  llm->push_hold();
  auto ticket = submit("alice", "count the rows");
  ASSERT_TRUE(ticket);
  auto live = view(ticket->task_id, true);
  EXPECT_EQ(live.user_id, "alice");
  EXPECT_EQ(live.task, "count the rows");
  EXPECT_EQ(live.mode, "async");
  ASSERT_TRUE(live.transcript);
  EXPECT_FALSE(view(ticket->task_id, false).transcript);
  auto missing = run(manager->view("task_none", false));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, harness::store::errc::task_not_found);

  store::task_query q;
  q.user_id = "alice";
  auto listed = run(manager->list(q));
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].task_id, ticket->task_id);
  EXPECT_EQ((*listed)[0].status, task_status::running);
  EXPECT_FALSE((*listed)[0].transcript);
}

TEST_F(AgentManager, AnEventStreamKeepsAliveOnTheClock) {
  start();
  llm->push_hold();
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  auto stream = run(manager->events(ticket->task_id, 0));
  ASSERT_TRUE(stream);
  // Drain what happened so far, then wait for more.
  for (;;) {
    auto e = run((*stream)->next(10s));
    ASSERT_TRUE(e);
    if (e->type == "llm_start") break;
  }
  auto next = spawn((*stream)->next(10s));
  EXPECT_EQ(next.wait_for(0s), std::future_status::timeout);
  clock.advance(10s);
  settle();
  ASSERT_EQ(next.wait_for(0s), std::future_status::ready);
  auto keep_alive = next.get();
  ASSERT_TRUE(keep_alive);
  EXPECT_TRUE(keep_alive->type.empty());
}

// A task another replica runs, as the shared store holds it.
store::task_record elsewhere_task(const std::string& id, const std::string& user) {
  store::task_record t;
  t.id = id;
  t.user_id = user;
  t.conversation_id = "conv_" + id;
  t.task = "elsewhere";
  t.mode = "async";
  t.status = task_status::running;
  t.owner = "replica-b";
  return t;
}

TEST_F(AgentManager, ATaskOfAnotherReplicaIsStreamedFromTheStoreAsItChanges) {
  store->is_shared = true;
  start();
  ASSERT_TRUE(store->on_change) << "a manager on a shared store watches its changes";
  store->tasks["task_b"] = elsewhere_task("task_b", "alice");
  store->events_of["task_b"] = {{"task_b", 1, "llm_start", {}, 0}};
  auto stream = run(manager->events("task_b", 0));
  ASSERT_TRUE(stream) << stream.error().describe();
  auto first = run((*stream)->next(10s));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->seq, 1);

  // Nothing new: the stream waits for the store's notice (or the keep-alive on the clock).
  auto next = spawn((*stream)->next(10s));
  EXPECT_EQ(next.wait_for(0s), std::future_status::timeout);
  store->events_of["task_b"].push_back({"task_b", 2, "final", "done", 0});
  store->on_change("task_other");  // another task's notice wakes nothing
  settle();
  EXPECT_EQ(next.wait_for(0s), std::future_status::timeout);
  store->on_change("task_b");
  settle();
  ASSERT_EQ(next.wait_for(0s), std::future_status::ready);
  auto second = next.get();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->type, "final");

  // A keep-alive on the clock while the task still runs, then its end ends the stream.
  auto idle = spawn((*stream)->next(10s));
  clock.advance(10s);
  settle();
  ASSERT_EQ(idle.wait_for(0s), std::future_status::ready);
  auto keep_alive = idle.get();
  ASSERT_TRUE(keep_alive);
  EXPECT_TRUE(keep_alive->type.empty());
  // The owner stores the final status, then the last events: the stream waits for them.
  store->tasks["task_b"].status = task_status::succeeded;
  auto end = spawn((*stream)->next(10s));
  store->on_change("task_b");
  settle();
  EXPECT_EQ(end.wait_for(0s), std::future_status::timeout);
  store->events_of["task_b"].push_back({"task_b", 3, "end", {}, 0});
  store->on_change("");  // a reconnected listener: every follower reads again
  settle();
  ASSERT_EQ(end.wait_for(0s), std::future_status::ready);
  auto last = end.get();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->type, "end");
  EXPECT_FALSE(run((*stream)->next(10s)));
}

TEST_F(AgentManager, AFollowedTaskInterruptedWithoutAnEndEventEndsItsStreamAfterOneWait) {
  store->is_shared = true;
  start();
  store->tasks["task_b"] = elsewhere_task("task_b", "alice");
  auto stream = run(manager->events("task_b", 0));
  ASSERT_TRUE(stream);
  auto next = spawn((*stream)->next(10s));
  store->tasks["task_b"].status = task_status::interrupted;  // its replica died; another marked it
  store->on_change("task_b");
  settle();
  EXPECT_EQ(next.wait_for(0s), std::future_status::timeout) << "it waits for an end event a while";
  clock.advance(10s);
  settle();
  ASSERT_EQ(next.wait_for(0s), std::future_status::ready);
  EXPECT_FALSE(next.get());
}

TEST_F(AgentManager, AnotherReplicasTaskCountsForItsUserAndOnlyItsReplicaMayCancelIt) {
  config.max_per_user = 1;
  store->is_shared = true;
  start();
  store->tasks["task_b"] = elsewhere_task("task_b", "alice");
  auto refused = submit("alice");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, errc::user_busy);
  EXPECT_TRUE(submit("bob"));
  auto cancelled = run(manager->cancel("task_b"));
  ASSERT_FALSE(cancelled);
  EXPECT_EQ(cancelled.error().code, errc::task_elsewhere);
  EXPECT_NE(cancelled.error().message.find("replica-b"), std::string::npos) << cancelled.error().message;
}

TEST_F(AgentManager, ATaskCarriesThisReplicasNameAndALease) {
  config.owner = "replica-a";
  config.lease = 30s;
  start();
  llm->push_hold();
  auto ticket = submit("alice");
  ASSERT_TRUE(ticket);
  const auto& stored = store->tasks.at(ticket->task_id);
  EXPECT_EQ(stored.owner, "replica-a");
  EXPECT_EQ(stored.lease_until_ms, clock.epoch_ms() + 30000);
}

TEST_F(AgentManager, AStreamOfATaskThatEndedElsewhereAMomentAgoWaitsForItsLastEvents) {
  store->is_shared = true;
  start();
  store->tasks["task_b"] = elsewhere_task("task_b", "alice");
  store->tasks["task_b"].status = task_status::succeeded;  // stored, its "end" event not yet
  store->tasks["task_b"].finished_ms = clock.epoch_ms();
  auto stream = run(manager->events("task_b", 0));
  ASSERT_TRUE(stream);
  auto next = spawn((*stream)->next(10s));
  EXPECT_EQ(next.wait_for(0s), std::future_status::timeout);
  store->events_of["task_b"].push_back({"task_b", 1, "end", {}, 0});
  store->on_change("task_b");
  settle();
  ASSERT_EQ(next.wait_for(0s), std::future_status::ready);
  auto end = next.get();
  ASSERT_TRUE(end);
  EXPECT_EQ(end->type, "end");
  // Long finished: read as stored, no waiting.
  store->tasks["task_old"] = elsewhere_task("task_old", "alice");
  store->tasks["task_old"].status = task_status::interrupted;
  store->tasks["task_old"].finished_ms = clock.epoch_ms() - 60000;
  auto old = run(manager->events("task_old", 0));
  ASSERT_TRUE(old);
  EXPECT_FALSE(run((*old)->next(10s)));
}

}  // namespace
}  // namespace harness::agent
