// The blocking_task_store contract, on both backends: a real in-memory SQLite
// database, and a fresh database on a real PostgreSQL server.
#include <gtest/gtest.h>

#include "store_test_support.hpp"

#include "harness/store/errors.hpp"

namespace harness::store {
namespace {

using testing::sample_task;

// Each TEST_P runs once per backend (the parameter names it).
class TaskStore : public ::testing::TestWithParam<std::string> {
 protected:
  std::shared_ptr<blocking_task_store> open_store() {
    auto store = testing::open_backend(GetParam());
    EXPECT_TRUE(store);
    return store;
  }
};

const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD

task_record full_task() {
  task_record t = sample_task("task_full");
  t.task = "Résumé: 日本語のテキスト 😀, \"quotes\" and a\nnew line";
  t.mode = "stream";
  t.status = task_status::succeeded;
  t.result = "the answer is 42 ✓";
  t.error = nullptr;
  t.turns = 7;
  t.input_tokens = 123456789012LL;
  t.output_tokens = 42;
  t.started_ms = 1001;
  t.finished_ms = 1999;
  t.key_id = "key_abc";
  t.owner = "replica-1";
  t.lease_until_ms = 61999;
  t.language = "python";
  t.trace_id = "0af7651916cd43dd8448eb211c80319c";
  t.transcript = nlohmann::json::array({{{"role", "system"}, {"content", "you write code"}},
                                        {{"role", "user"}, {"content", "Ünïcödé [EMAIL_1]"}},
                                        {{"role", "assistant"}, {"content", nullptr}, {"n", 1.5}}});
  return t;
}

void expect_same(const task_record& a, const task_record& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.user_id, b.user_id);
  EXPECT_EQ(a.conversation_id, b.conversation_id);
  EXPECT_EQ(a.task, b.task);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.result, b.result);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.turns, b.turns);
  EXPECT_EQ(a.input_tokens, b.input_tokens);
  EXPECT_EQ(a.output_tokens, b.output_tokens);
  EXPECT_EQ(a.created_ms, b.created_ms);
  EXPECT_EQ(a.started_ms, b.started_ms);
  EXPECT_EQ(a.finished_ms, b.finished_ms);
  EXPECT_EQ(a.key_id, b.key_id);
  EXPECT_EQ(a.owner, b.owner);
  EXPECT_EQ(a.lease_until_ms, b.lease_until_ms);
  EXPECT_EQ(a.language, b.language);
  EXPECT_EQ(a.trace_id, b.trace_id);
  EXPECT_EQ(a.transcript, b.transcript);
}

TEST_P(TaskStore, TaskRoundTripKeepsEveryField) {
  auto store = open_store();
  ASSERT_TRUE(store);
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  auto t = full_task();
  ASSERT_TRUE(store->create_task(t));
  auto got = store->get_task(t.id);
  ASSERT_TRUE(got) << got.error().describe();
  ASSERT_TRUE(got->has_value());
  expect_same(**got, t);
}

TEST_P(TaskStore, ErrorObjectAndNullResultRoundTrip) {
  auto store = open_store();
  auto t = sample_task("task_err");
  t.status = task_status::failed;
  t.error = {{"code", "llm_unavailable"}, {"message", "429 from the API"}};
  ASSERT_TRUE(store->create_task(t));
  auto got = store->get_task(t.id);
  ASSERT_TRUE(got && got->has_value());
  EXPECT_TRUE((*got)->result.is_null());
  EXPECT_EQ((*got)->error, t.error);
  EXPECT_EQ((*got)->transcript, nlohmann::json::array());
}

TEST_P(TaskStore, PlainStringsKeepTheirBytesEvenInvalidUtf8AndNul) {
  auto store = open_store();
  auto t = sample_task("task_bytes");
  t.task = std::string("bad \xff\xfe utf8 and a nul \0 inside", 33);
  t.user_id = "user'; DROP TABLE tasks; --";
  ASSERT_TRUE(store->create_task(t));
  auto got = store->get_task(t.id);
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->task, t.task);
  EXPECT_EQ((*got)->task.size(), 33u);
  EXPECT_EQ((*got)->user_id, t.user_id);
  auto listed = store->list_tasks({.user_id = t.user_id});
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 1u);
}

TEST_P(TaskStore, InvalidUtf8InsideJsonBecomesReplacementCharacter) {
  auto store = open_store();
  auto t = sample_task("task_json_utf8");
  t.result = std::string("ok \xff end");
  t.transcript = nlohmann::json::array({{{"content", std::string("\xc3\x28 broken")}}});
  ASSERT_TRUE(store->create_task(t));
  auto got = store->get_task(t.id);
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->result, "ok " + replacement + " end");
  EXPECT_EQ((*got)->transcript[0]["content"], replacement + "( broken");

  ASSERT_TRUE(store->append_event({t.id, 1, "log", {{"text", std::string("\x80")}}, 5}));
  auto events = store->events(t.id, 0);
  ASSERT_TRUE(events && events->size() == 1);
  EXPECT_EQ((*events)[0].data["text"], replacement);

  conversation_record c{
      "conv_u", "alice", nlohmann::json::array({std::string("\xfe")}), {{"[EMAIL_1]", std::string("a\xff@x.org")}},
      1,        2};
  ASSERT_TRUE(store->save_conversation(c));
  auto conv = store->get_conversation("conv_u");
  ASSERT_TRUE(conv && conv->has_value());
  EXPECT_EQ((*conv)->messages[0], replacement);
  EXPECT_EQ((*conv)->vault["[EMAIL_1]"], "a" + replacement + "@x.org");
}

TEST_P(TaskStore, DuplicateTaskIdIsRefusedAndKeepsTheFirst) {
  auto store = open_store();
  ASSERT_TRUE(store->create_task(sample_task("task_1", "alice")));
  auto again = store->create_task(sample_task("task_1", "mallory"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, harness::store::errc::task_exists);
  auto got = store->get_task("task_1");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->user_id, "alice");
  EXPECT_TRUE(store->health().up) << "a caller's mistake is not a storage failure";
}

TEST_P(TaskStore, UpdateReplacesEveryFieldAndUnknownIdIsNotFound) {
  auto store = open_store();
  ASSERT_TRUE(store->create_task(sample_task("task_full")));
  auto t = full_task();
  ASSERT_TRUE(store->update_task(t));
  auto got = store->get_task(t.id);
  ASSERT_TRUE(got && got->has_value());
  expect_same(**got, t);

  auto missing = store->update_task(sample_task("task_nope"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, harness::store::errc::task_not_found);
  auto none = store->get_task("task_nope");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
}

class TaskListing : public TaskStore {
 protected:
  void SetUp() override {
    store_ = open_store();
    ASSERT_TRUE(store_);
    // alice: a@100 queued, b@200 running, c@300 succeeded, d@300 succeeded (tie), e@400 failed; bob: f@250.
    add("task_a", "alice", 100, task_status::queued);
    add("task_b", "alice", 200, task_status::running);
    add("task_c", "alice", 300, task_status::succeeded);
    add("task_d", "alice", 300, task_status::succeeded);
    add("task_e", "alice", 400, task_status::failed);
    add("task_f", "bob", 250, task_status::succeeded);
  }
  void add(const std::string& id, const std::string& user, std::int64_t created, task_status status) {
    auto t = sample_task(id, user, created);
    t.status = status;
    t.transcript = nlohmann::json::array({"big transcript"});
    ASSERT_TRUE(store_->create_task(t));
  }
  std::vector<std::string> ids(const task_query& q) {
    auto r = store_->list_tasks(q);
    EXPECT_TRUE(r) << r.error().describe();
    std::vector<std::string> out;
    if (r) {
      for (auto& t : *r) {
        out.push_back(t.id);
        EXPECT_EQ(t.transcript, nlohmann::json::array()) << "listings leave the transcript out";
      }
    }
    return out;
  }
  std::shared_ptr<blocking_task_store> store_;
};

using ids_t = std::vector<std::string>;

TEST_P(TaskListing, NewestFirstPerUser) {
  EXPECT_EQ(ids({.user_id = "alice"}), (ids_t{"task_e", "task_d", "task_c", "task_b", "task_a"}));
  EXPECT_EQ(ids({.user_id = "bob"}), (ids_t{"task_f"}));
  EXPECT_EQ(ids({.user_id = "carol"}), ids_t{});
}

TEST_P(TaskListing, EmptyUserListsEveryone) {
  EXPECT_EQ(ids({}), (ids_t{"task_e", "task_d", "task_c", "task_f", "task_b", "task_a"}));
}

TEST_P(TaskListing, StatusFilter) {
  EXPECT_EQ(ids({.user_id = "alice", .status = task_status::succeeded}), (ids_t{"task_d", "task_c"}));
  EXPECT_EQ(ids({.status = task_status::succeeded}), (ids_t{"task_d", "task_c", "task_f"}));
  EXPECT_EQ(ids({.user_id = "alice", .status = task_status::cancelled}), ids_t{});
}

TEST_P(TaskListing, LimitAndZeroLimit) {
  EXPECT_EQ(ids({.user_id = "alice", .limit = 2}), (ids_t{"task_e", "task_d"}));
  EXPECT_EQ(ids({.user_id = "alice", .limit = 0}), ids_t{});
}

TEST_P(TaskListing, BeforeMsPagesOlderTasks) {
  EXPECT_EQ(ids({.user_id = "alice", .before_ms = 300}), (ids_t{"task_b", "task_a"}));
  EXPECT_EQ(ids({.user_id = "alice", .before_ms = 1}), ids_t{});
}

TEST_P(TaskListing, PagingByCreatedAndIdNeitherSkipsNorRepeatsTies) {
  ids_t seen;
  task_query q{.user_id = "alice", .limit = 2};
  for (int page = 0; page < 10; ++page) {
    auto r = store_->list_tasks(q);
    ASSERT_TRUE(r);
    if (r->empty()) break;
    for (auto& t : *r) seen.push_back(t.id);
    q.before_ms = r->back().created_ms;
    q.before_id = r->back().id;
  }
  EXPECT_EQ(seen, (ids_t{"task_e", "task_d", "task_c", "task_b", "task_a"}));
}

TEST_P(TaskListing, HugeLimitIsCapped) {
  for (int i = 0; i < 1005; ++i) add("task_many_" + std::to_string(i), "zed", 10 + i, task_status::queued);
  auto r = store_->list_tasks({.user_id = "zed", .limit = 1000000});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), max_list_limit);
}

TEST_P(TaskStore, EventsAfterSeqAscendingWithLimit) {
  auto store = open_store();
  ASSERT_TRUE(store->create_task(sample_task("task_1")));
  ASSERT_TRUE(store->create_task(sample_task("task_2")));
  // Appended out of order on purpose: the store orders by seq, not by arrival.
  for (std::int64_t seq : {2, 1, 3, 5, 4}) {
    ASSERT_TRUE(store->append_event({"task_1", seq, "log", {{"n", seq}}, 100 + seq}));
  }
  ASSERT_TRUE(store->append_event({"task_2", 1, "final", "done", 7}));

  auto all = store->events("task_1", 0);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*all)[i].seq, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ((*all)[i].task_id, "task_1");
    EXPECT_EQ((*all)[i].type, "log");
    EXPECT_EQ((*all)[i].data["n"], i + 1);
    EXPECT_EQ((*all)[i].at_ms, static_cast<std::int64_t>(101 + i));
  }
  auto after = store->events("task_1", 3);
  ASSERT_TRUE(after && after->size() == 2);
  EXPECT_EQ((*after)[0].seq, 4);
  auto limited = store->events("task_1", 1, 2);
  ASSERT_TRUE(limited && limited->size() == 2);
  EXPECT_EQ((*limited)[1].seq, 3);
  auto other = store->events("task_2", 0);
  ASSERT_TRUE(other && other->size() == 1);
  EXPECT_EQ((*other)[0].data, "done");
  auto none = store->events("task_1", 5);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_P(TaskStore, DuplicateEventAndEventOfUnknownTaskAreRefused) {
  auto store = open_store();
  ASSERT_TRUE(store->create_task(sample_task("task_1")));
  ASSERT_TRUE(store->append_event({"task_1", 1, "code", "console.log(1)", 1}));
  auto dup = store->append_event({"task_1", 1, "code", "other", 2});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, harness::store::errc::event_exists);
  auto orphan = store->append_event({"task_nope", 1, "code", "x", 1});
  ASSERT_FALSE(orphan);
  EXPECT_EQ(orphan.error().code, harness::store::errc::task_not_found);
  auto events = store->events("task_1", 0);
  ASSERT_TRUE(events && events->size() == 1);
  EXPECT_EQ((*events)[0].data, "console.log(1)");
}

TEST_P(TaskStore, ConversationUpsertKeepsCreatedAndOwner) {
  auto store = open_store();
  auto none = store->get_conversation("conv_1");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());

  conversation_record c{"conv_1",
                        "alice",
                        nlohmann::json::array({{{"role", "user"}, {"content", "héllo"}}}),
                        {{"[EMAIL_1]", "a@example.org"}},
                        100,
                        100};
  ASSERT_TRUE(store->save_conversation(c));
  c.messages.push_back({{"role", "assistant"}, {"content", "hi"}});
  c.vault["[PHONE_1]"] = "+1 415 555 0100";
  c.created_ms = 999;  // ignored on update
  c.updated_ms = 200;
  ASSERT_TRUE(store->save_conversation(c));
  auto got = store->get_conversation("conv_1");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->user_id, "alice");
  EXPECT_EQ((*got)->messages, c.messages);
  EXPECT_EQ((*got)->vault, c.vault);
  EXPECT_EQ((*got)->created_ms, 100);
  EXPECT_EQ((*got)->updated_ms, 200);

  auto stolen = c;
  stolen.user_id = "mallory";
  stolen.messages = nlohmann::json::array();
  auto r = store->save_conversation(stolen);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, harness::store::errc::conversation_user_mismatch);
  got = store->get_conversation("conv_1");
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->messages.size(), 2u);
}

TEST_P(TaskStore, UsageTotalsPerUserSinceAndForEveryone) {
  auto store = open_store();
  ASSERT_TRUE(store->record_usage("alice", "task_1", 100, 10, 1000));
  ASSERT_TRUE(store->record_usage("alice", "task_1", 200, 20, 2000));
  ASSERT_TRUE(store->record_usage("alice", "task_2", 300, 30, 3000));
  ASSERT_TRUE(store->record_usage("bob", "task_3", 5, 1, 1500));

  auto alice = store->usage("alice");
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->tasks, 2);
  EXPECT_EQ(alice->input_tokens, 600);
  EXPECT_EQ(alice->output_tokens, 60);
  auto recent = store->usage("alice", 2000);
  ASSERT_TRUE(recent);
  EXPECT_EQ(recent->tasks, 2);
  EXPECT_EQ(recent->input_tokens, 500);
  auto later = store->usage("alice", 2001);
  ASSERT_TRUE(later);
  EXPECT_EQ(later->tasks, 1);
  EXPECT_EQ(later->output_tokens, 30);
  auto everyone = store->usage("");
  ASSERT_TRUE(everyone);
  EXPECT_EQ(everyone->tasks, 3);
  EXPECT_EQ(everyone->input_tokens, 605);
  auto nobody = store->usage("carol");
  ASSERT_TRUE(nobody);
  EXPECT_EQ(nobody->tasks, 0);
  EXPECT_EQ(nobody->input_tokens, 0);
  EXPECT_EQ(nobody->output_tokens, 0);
}

TEST_P(TaskStore, MarkInterruptedTouchesOnlyUnfinishedTasks) {
  auto store = open_store();
  auto queued = sample_task("task_q");
  auto running = sample_task("task_r");
  running.status = task_status::running;
  running.started_ms = 1100;
  auto done = sample_task("task_s");
  done.status = task_status::succeeded;
  done.finished_ms = 1500;
  done.result = "fine";
  // A call of its code waited for a person when the server stopped.
  auto waiting = sample_task("task_w");
  waiting.status = task_status::awaiting_approval;
  for (auto& t : {queued, running, done, waiting}) ASSERT_TRUE(store->create_task(t));

  auto n = store->mark_interrupted(9000);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, (std::vector<std::string>{"task_q", "task_r", "task_w"}));
  for (const char* id : {"task_q", "task_r", "task_w"}) {
    auto t = store->get_task(id);
    ASSERT_TRUE(t && t->has_value());
    EXPECT_EQ((*t)->status, task_status::interrupted);
    EXPECT_EQ((*t)->error["code"], "interrupted");
    EXPECT_TRUE((*t)->error["message"].is_string());
    EXPECT_EQ((*t)->finished_ms, 9000);
  }
  auto s = store->get_task("task_s");
  ASSERT_TRUE(s && s->has_value());
  expect_same(**s, done);
  auto again = store->mark_interrupted(9500);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->empty());
}

task_record owned(const std::string& id, const std::string& owner, std::int64_t lease, task_status status) {
  auto t = sample_task(id);
  t.status = status;
  t.owner = owner;
  t.lease_until_ms = lease;
  return t;
}

TEST_P(TaskStore, MarkInterruptedTakesExpiredLeasesAndTheTasksOfTheGivenOwner) {
  auto store = open_store();
  ASSERT_TRUE(store->create_task(owned("task_a", "r1", 10000, task_status::running)));
  ASSERT_TRUE(store->create_task(owned("task_b", "r2", 10000, task_status::running)));
  ASSERT_TRUE(store->create_task(owned("task_c", "r2", 5000, task_status::awaiting_approval)));
  ASSERT_TRUE(store->create_task(owned("task_d", "r1", 100, task_status::succeeded)));

  // A sweep (no owner) takes only the task whose lease ended.
  EXPECT_EQ(store->mark_interrupted(8000).value(), std::vector<std::string>{"task_c"});
  // At start-up r1 takes back its own tasks, lease or not.
  EXPECT_EQ(store->mark_interrupted(8000, "r1").value(), std::vector<std::string>{"task_a"});
  EXPECT_EQ(store->get_task("task_b").value()->status, task_status::running);
  EXPECT_EQ(store->get_task("task_d").value()->status, task_status::succeeded);
  auto c = store->get_task("task_c").value();
  EXPECT_EQ(c->error["code"], "interrupted");
  EXPECT_EQ(c->finished_ms, 8000);
  // The lease is strict: a task whose lease ends exactly now still runs.
  EXPECT_TRUE(store->mark_interrupted(10000).value().empty());
  EXPECT_EQ(store->mark_interrupted(10001).value(), std::vector<std::string>{"task_b"});
}

TEST_P(TaskStore, RenewLeasesMovesOnlyTheUnfinishedTasksOfTheOwner) {
  auto store = open_store();
  ASSERT_TRUE(store->create_task(owned("task_a", "r1", 1000, task_status::running)));
  ASSERT_TRUE(store->create_task(owned("task_b", "r1", 1000, task_status::queued)));
  ASSERT_TRUE(store->create_task(owned("task_c", "r1", 1000, task_status::failed)));
  ASSERT_TRUE(store->create_task(owned("task_d", "r2", 1000, task_status::running)));
  EXPECT_EQ(store->renew_leases("r1", 90000).value(), 2u);
  EXPECT_EQ(store->get_task("task_a").value()->lease_until_ms, 90000);
  EXPECT_EQ(store->get_task("task_b").value()->lease_until_ms, 90000);
  EXPECT_EQ(store->get_task("task_c").value()->lease_until_ms, 1000);
  EXPECT_EQ(store->get_task("task_d").value()->lease_until_ms, 1000);
  EXPECT_EQ(store->renew_leases("nobody", 90000).value(), 0u);
  EXPECT_EQ(store->mark_interrupted(5000).value(), std::vector<std::string>{"task_d"});
}

TEST_P(TaskStore, ASessionIsHeldByOneReplicaUntilItsLeaseLapsesOrItIsReleased) {
  auto store = open_store();
  EXPECT_EQ(store->session_holder("alice/s1", 1000).value(), "");
  EXPECT_EQ(store->hold_session("alice/s1", "r1", 1000, 5000).value(), "r1");
  EXPECT_EQ(store->hold_session("alice/s1", "r1", 2000, 6000).value(), "r1");  // the holder renews
  EXPECT_EQ(store->hold_session("alice/s1", "r2", 3000, 7000).value(), "r1");  // another is told who holds it
  EXPECT_EQ(store->session_holder("alice/s1", 3000).value(), "r1");
  EXPECT_EQ(store->hold_session("bob/s1", "r2", 3000, 7000).value(), "r2");  // keys are per user
  // renew_leases keeps sessions too: r1's lease moves past 6000.
  ASSERT_TRUE(store->renew_leases("r1", 9000));
  EXPECT_EQ(store->hold_session("alice/s1", "r2", 8000, 12000).value(), "r1");
  // Lapsed: no holder, and another replica may take it.
  EXPECT_EQ(store->session_holder("alice/s1", 9001).value(), "");
  EXPECT_EQ(store->hold_session("alice/s1", "r2", 9001, 13000).value(), "r2");
  // Release only by the holder.
  ASSERT_TRUE(store->release_session("alice/s1", "r1"));
  EXPECT_EQ(store->session_holder("alice/s1", 9001).value(), "r2");
  ASSERT_TRUE(store->release_session("alice/s1", "r2"));
  EXPECT_EQ(store->session_holder("alice/s1", 9001).value(), "");
  EXPECT_EQ(store->hold_session("alice/s1", "r1", 9001, 13000).value(), "r1");
}

TEST_P(TaskStore, CredentialsArePerUserAndKindAndReplacedByName) {
  auto store = open_store();
  EXPECT_FALSE(store->get_credential("alice", "secret", "TOKEN").value().has_value());
  ASSERT_TRUE(store->put_credential({"alice", "secret", "TOKEN", R"({"sealed":"a"})", 1000}));
  ASSERT_TRUE(store->put_credential({"alice", "secret", "API_KEY", R"({"sealed":"b"})", 1001}));
  ASSERT_TRUE(store->put_credential({"alice", "oauth", "github", R"({"sealed":"c"})", 1002}));
  ASSERT_TRUE(store->put_credential({"bob", "secret", "TOKEN", R"({"sealed":"d"})", 1003}));
  ASSERT_TRUE(store->put_credential({"alice", "secret", "TOKEN", R"({"sealed":"e"})", 2000}));  // replaces
  auto token = store->get_credential("alice", "secret", "TOKEN").value();
  ASSERT_TRUE(token.has_value());
  EXPECT_EQ(token->sealed, R"({"sealed":"e"})");
  EXPECT_EQ(token->updated_ms, 2000);
  auto listed = store->list_credentials("alice", "secret").value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].name, "API_KEY");  // by name
  EXPECT_EQ(listed[1].name, "TOKEN");
  EXPECT_EQ(store->list_credentials("alice", "oauth").value().size(), 1u);
  EXPECT_TRUE(store->delete_credential("alice", "secret", "TOKEN").value());
  EXPECT_FALSE(store->delete_credential("alice", "secret", "TOKEN").value());
  EXPECT_EQ(store->get_credential("bob", "secret", "TOKEN").value()->sealed, R"({"sealed":"d"})");
  EXPECT_EQ(store->list_credentials("carol", "secret").value().size(), 0u);
}

TEST_P(TaskStore, CreateTaskLimitedRefusesASecondUnfinishedTaskOfOneConversation) {
  auto store = open_store();
  auto first = sample_task("task_1");
  first.conversation_id = "conv_shared";
  ASSERT_TRUE(store->create_task_limited(first, 10));
  auto second = sample_task("task_2");
  second.conversation_id = "conv_shared";
  auto refused = store->create_task_limited(second, 10);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, harness::store::errc::conversation_running);
  EXPECT_EQ(refused.error().code.http_status(), 409u);
  first.status = task_status::succeeded;
  ASSERT_TRUE(store->update_task(first));
  EXPECT_TRUE(store->create_task_limited(second, 10));
}

TEST_P(TaskStore, AnUpdateNeverMovesTheLeaseBack) {
  auto store = open_store();
  auto task = owned("task_a", "r1", 1000, task_status::queued);
  ASSERT_TRUE(store->create_task(task));
  ASSERT_TRUE(store->renew_leases("r1", 90000));
  task.status = task_status::running;  // the owner's copy still says 1000
  ASSERT_TRUE(store->update_task(task));
  EXPECT_EQ(store->get_task("task_a").value()->lease_until_ms, 90000);
  EXPECT_EQ(store->get_task("task_a").value()->status, task_status::running);
  EXPECT_TRUE(store->mark_interrupted(5000).value().empty());
}

TEST_P(TaskStore, ATaskMarkedInterruptedStaysSoWhenItsOwnerWritesLate) {
  auto store = open_store();
  auto task = owned("task_a", "r1", 1000, task_status::running);
  ASSERT_TRUE(store->create_task(task));
  ASSERT_EQ(store->mark_interrupted(5000).value(), std::vector<std::string>{"task_a"});
  task.status = task_status::succeeded;  // the owner, taken for dead, finishes after all
  auto late = store->update_task(task);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, harness::store::errc::task_interrupted);
  EXPECT_EQ(store->get_task("task_a").value()->status, task_status::interrupted);
  task.status = task_status::interrupted;  // the same status may be written again
  EXPECT_TRUE(store->update_task(task));
  auto missing = store->update_task(owned("task_none", "r1", 0, task_status::running));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, harness::store::errc::task_not_found);
}

TEST_P(TaskStore, CreateTaskLimitedCountsTheUnfinishedTasksOfTheUser) {
  auto store = open_store();
  ASSERT_TRUE(store->create_task(owned("task_done", "", 0, task_status::succeeded)));
  ASSERT_TRUE(store->create_task_limited(sample_task("task_1"), 2));
  auto waiting = sample_task("task_2");
  waiting.status = task_status::awaiting_approval;
  ASSERT_TRUE(store->create_task_limited(waiting, 2));
  auto third = store->create_task_limited(sample_task("task_3"), 2);
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().code, harness::store::errc::user_limit);
  EXPECT_EQ(third.error().code.wire_name(), "user_limit");
  EXPECT_FALSE(store->get_task("task_3").value().has_value());
  EXPECT_TRUE(store->create_task_limited(sample_task("task_bob", "bob"), 2)) << "the limit is per user";
  auto again = sample_task("task_1");
  again.conversation_id = "conv_elsewhere";  // the same id in another conversation
  auto dup = store->create_task_limited(again, 5);
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, harness::store::errc::task_exists);
  auto one = sample_task("task_1");
  one.status = task_status::succeeded;
  ASSERT_TRUE(store->update_task(one));
  EXPECT_TRUE(store->create_task_limited(sample_task("task_3"), 2)) << "a finished task frees its slot";
  EXPECT_FALSE(store->create_task_limited(sample_task("task_4"), 0));
  EXPECT_TRUE(store->health().up) << "reaching the limit is not a storage failure";
}

TEST_P(TaskStore, SharedOnlyForPostgresAndWatchingAPrivateStoreDoesNothing) {
  auto store = open_store();
  EXPECT_EQ(store->shared(), GetParam() == "postgresql");
  if (!store->shared()) {
    EXPECT_TRUE(store->watch_changes([](const std::string&) {}));
  }
}

TEST_P(TaskStore, ForgetVaultsBeforeEmptiesOnlyTheVaultsOfOldConversations) {
  using json = nlohmann::json;
  auto store = open_store();
  conversation_record old_one{"conv_old",
                              "alice",
                              json::array({{{"role", "user"}, {"content", "[EMAIL_1]"}}}),
                              {{"EMAIL_1", "jane.doe@example.com"}},
                              1000,
                              2000};
  conversation_record recent = old_one;
  recent.id = "conv_new";
  recent.updated_ms = 9000;
  ASSERT_TRUE(store->save_conversation(old_one));
  ASSERT_TRUE(store->save_conversation(recent));
  const json empty = {{"version", 1}, {"entries", json::array()}};  // what pii_vault().to_json() gives
  auto n = store->forget_vaults_before(5000, empty);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 1u);
  auto old_after = store->get_conversation("conv_old").value();
  ASSERT_TRUE(old_after);
  EXPECT_EQ(old_after->vault, empty);
  EXPECT_EQ(old_after->messages, old_one.messages);  // the messages stay, with their tokens
  EXPECT_EQ(store->get_conversation("conv_new").value()->vault, recent.vault);
  EXPECT_EQ(store->forget_vaults_before(5000, empty).value(), 0u);  // once empty, not counted again
}

TEST_P(TaskStore, DeleteFinishedBeforeRemovesOldTasksWithTheirEventsOnly) {
  auto store = open_store();
  auto old_done = sample_task("task_old");
  old_done.status = task_status::succeeded;
  old_done.finished_ms = 1000;
  auto new_done = sample_task("task_new");
  new_done.status = task_status::failed;
  new_done.finished_ms = 5000;
  auto running = sample_task("task_run");
  running.status = task_status::running;
  for (auto& t : {old_done, new_done, running}) ASSERT_TRUE(store->create_task(t));
  for (const char* id : {"task_old", "task_new", "task_run"}) {
    ASSERT_TRUE(store->append_event({id, 1, "log", "x", 1}));
    ASSERT_TRUE(store->append_event({id, 2, "log", "y", 2}));
  }
  ASSERT_TRUE(store->record_usage("alice", "task_old", 10, 1, 900));
  ASSERT_TRUE(store->save_conversation({"conv_task_old", "alice", nlohmann::json::array(), {}, 1, 1}));

  auto n = store->delete_finished_before(5000);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 1u);
  auto gone = store->get_task("task_old");
  ASSERT_TRUE(gone);
  EXPECT_FALSE(gone->has_value());
  auto gone_events = store->events("task_old", 0);
  ASSERT_TRUE(gone_events);
  EXPECT_TRUE(gone_events->empty());
  for (const char* id : {"task_new", "task_run"}) {
    auto t = store->get_task(id);
    ASSERT_TRUE(t && t->has_value()) << id;
    auto e = store->events(id, 0);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->size(), 2u) << id;
  }
  auto usage = store->usage("alice");
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->input_tokens, 10) << "the usage ledger outlives retention";
  auto conv = store->get_conversation("conv_task_old");
  ASSERT_TRUE(conv && conv->has_value());
}

TEST_P(TaskStore, HealthReportsTheBackendAndOperations) {
  auto store = open_store();
  auto h = store->health();
  EXPECT_TRUE(h.up);
  EXPECT_TRUE(h.required);
  EXPECT_EQ(h.detail["backend"], GetParam());
  EXPECT_EQ(h.detail["schemaVersion"], latest_schema_version());
  ASSERT_TRUE(store->create_task(sample_task("task_1")));
  EXPECT_EQ(store->health().detail["operations"], 1);
  EXPECT_EQ(store->health().detail["failures"], 0);
  EXPECT_FALSE(store->health().detail.contains("lastError"));
}

const auto backends = ::testing::Values("sqlite", "postgresql");
auto backend_name = [](const ::testing::TestParamInfo<std::string>& info) { return info.param; };
INSTANTIATE_TEST_SUITE_P(Backends, TaskStore, backends, backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, TaskListing, backends, backend_name);

}  // namespace
}  // namespace harness::store
