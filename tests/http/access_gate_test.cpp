// The access gate in front of every route, through the real dispatcher and
// route table, with keys in memory and a stub agent: a matrix over every
// route of make_api_router() (no key, a malformed key, a revoked key, a key
// for another user, a user key acting for its own user, an admin key), the
// rate limit on a fake clock, and the metrics. The real binary with a real
// key file is tests/auth/auth_integration_test.cpp.
#include <gtest/gtest.h>

#include "harness/auth/api_key.hpp"
#include "harness/auth/key_store.hpp"
#include "harness/auth/rate_limiter.hpp"
#include "harness/core/metrics.hpp"
#include "harness/http/access_gate.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "http/run_dispatch.hpp"
#include "http/stub_agent.hpp"
#include "support/fake_clock.hpp"

namespace harness::http {
namespace {

using json = nlohmann::json;

struct issued {
  std::string key;
  auth::key_record record;
};

issued make_key(std::string id, std::vector<std::string> users, bool admin = false) {
  issued out;
  out.key = auth::generate_api_key().value();
  out.record = auth::key_record{std::move(id),           "label", std::move(users), admin, "2026-12-01T00:00:00Z",
                                auth::digest_of(out.key)};
  return out;
}

// A path for a route pattern: {userId} is `user`, {id} names alice's task,
// {name} a skill, {path...} a file.
std::string path_for(const std::string& pattern, const std::string& user) {
  std::string out = pattern;
  auto put = [&](const std::string& from, const std::string& to) {
    if (auto at = out.find(from); at != std::string::npos) out.replace(at, from.size(), to);
  };
  put("{userId}", user);
  put("{id}", pattern.starts_with("/sessions") ? "s1" : "task_1");
  put("{name}", "notes");
  put("{approvalId}", "appr_1");
  put("{path...}", "out.txt");
  return out;
}

class AccessGate : public ::testing::Test {
 protected:
  AccessGate() {
    svc.agent = agent;
    svc.metrics = metrics;
    auth::key_set set{{alice.record, bob.record, admin.record}};
    gate_options.keys = auth::create_memory_key_store(set);
    gate_options.metrics = metrics.get();
  }

  void install_gate() { svc.access = std::make_shared<access_gate>(gate_options); }

  // `route` with `user` named where the route names one (path, query or body).
  http_request request_for(const route& r, const std::string& user, const std::optional<std::string>& key) {
    http_request req;
    req.method = r.method;
    req.path = path_for(r.pattern, user);
    req.target = req.path;
    req.request_id = "req_1";
    const bool approval = r.pattern.find("{approvalId}") != std::string::npos;
    bool query_user = r.method == "DELETE" || r.method == "PUT" || approval || r.pattern.starts_with("/connections") ||
                      (r.method == "GET" && r.pattern.find("{userId}") == std::string::npos);
    if (query_user && !r.pattern.starts_with("/health") && !r.pattern.starts_with("/tools") &&
        r.pattern != "/metrics") {
      req.query["userId"] = user;
      req.target += "?userId=" + user;
    }
    if (r.json_body) {
      req.headers.emplace_back("Content-Type", "application/json");
      req.body = r.pattern == "/task" ? json{{"userId", user}, {"task", "add 2 and 3"}, {"mode", "async"}}.dump()
                 : approval           ? json{{"decision", "approve"}}.dump()
                                      : json{{"userId", user}, {"code", "return 1"}}.dump();
    }
    if (key) req.headers.emplace_back("Authorization", *key);
    return req;
  }

  http_response call(const route& r, const std::string& user, const std::optional<std::string>& key) {
    return run_dispatch(router_, svc, request_for(r, user, key));
  }

  static json error_of(const http_response& r) { return json::parse(r.body)["error"]; }

  issued alice = make_key("key_a11ce0000000", {"alice"});
  issued bob = make_key("key_b0b000000000", {"bob"});
  issued admin = make_key("key_ad0000000000", {}, true);
  std::shared_ptr<testing::stub_agent> agent = std::make_shared<testing::stub_agent>();
  std::shared_ptr<core::metrics_registry> metrics = std::make_shared<core::metrics_registry>();
  access_gate::options gate_options;
  services svc{core::real_clock()};
  router router_ = make_api_router();
};

TEST_F(AccessGate, EveryRouteButTheHealthProbesNeedsAKey) {
  install_gate();
  int guarded = 0;
  for (const auto& r : router_.routes()) {
    SCOPED_TRACE(r.method + " " + r.pattern);
    auto answer = call(r, "alice", std::nullopt);
    if (r.access == route_access::open) {
      // The probes, the dashboard's files (its data comes from the guarded routes), and
      // OAuth's callback (a browser back from an authorization server has no key; the state is the credential).
      EXPECT_TRUE(r.pattern.starts_with("/health") || r.pattern == "/" || r.pattern.starts_with("/ui") ||
                  r.pattern == "/oauth/callback")
          << r.pattern;
      EXPECT_NE(answer.status, 401u);
      continue;
    }
    ++guarded;
    ASSERT_EQ(answer.status, 401u) << answer.body;
    EXPECT_EQ(error_of(answer)["code"], "key_required");
    EXPECT_NE(error_of(answer)["message"].get<std::string>().find("Authorization: Bearer"), std::string::npos);
    EXPECT_EQ(answer.header("WWW-Authenticate"), "Bearer realm=\"mcp-harness\"");
  }
  EXPECT_GE(guarded, 15);
}

TEST_F(AccessGate, MalformedUnknownAndRevokedKeysAreRefusedAlike) {
  install_gate();
  auto revoked = make_key("key_0ld000000000", {"alice"});  // well formed, not in the store
  const std::vector<std::string> bad = {"Bearer " + revoked.key, "Bearer mh_short", "Bearer ",
                                        "Basic YWxpY2U6cHc=",    alice.key,         "Bearer " + alice.key + "x"};
  for (const auto& r : router_.routes()) {
    if (r.access == route_access::open) continue;
    for (const auto& header : bad) {
      SCOPED_TRACE(r.method + " " + r.pattern + " with '" + header + "'");
      auto answer = call(r, "alice", header);
      ASSERT_EQ(answer.status, 401u) << answer.body;
      EXPECT_EQ(error_of(answer)["code"], "invalid_key");
      EXPECT_EQ(answer.header("WWW-Authenticate"), "Bearer realm=\"mcp-harness\", error=\"invalid_token\"");
      // Nothing of what was sent comes back.
      EXPECT_EQ(answer.body.find("mh_"), std::string::npos);
    }
  }
}

TEST_F(AccessGate, AUserKeyActsForItsOwnUserOnEveryRoute) {
  install_gate();
  for (const auto& r : router_.routes()) {
    SCOPED_TRACE(r.method + " " + r.pattern);
    auto answer = call(r, "alice", "Bearer " + alice.key);
    if (r.access == route_access::admin) {
      ASSERT_EQ(answer.status, 403u) << answer.body;
      EXPECT_EQ(error_of(answer)["code"], "admin_required");
      EXPECT_NE(error_of(answer)["message"].get<std::string>().find("key_a11ce0000000"), std::string::npos);
      continue;
    }
    // Past the gate: the handler answers (503 where this test configures no backend).
    EXPECT_NE(answer.status, 401u) << answer.body;
    EXPECT_NE(answer.status, 403u) << answer.body;
  }
  ASSERT_EQ(agent->submitted.size(), 1u);
  EXPECT_EQ(agent->submitted[0].user_id, "alice");
  EXPECT_EQ(agent->submitted[0].key_id, "key_a11ce0000000");
}

TEST_F(AccessGate, AKeyForAnotherUserGets403ForANamedUserAnd404ForTheirObjects) {
  install_gate();
  for (const auto& r : router_.routes()) {
    // /mcp names its user once, at initialize (tests/mcp_server/mcp_face_integration_test.cpp).
    // /me names no user: it says who the key is.
    if (r.access != route_access::caller || r.pattern.starts_with("/tools") || r.pattern == "/mcp" ||
        r.pattern == "/me")
      continue;
    SCOPED_TRACE(r.method + " " + r.pattern);
    auto answer = call(r, "alice", "Bearer " + bob.key);
    if (r.pattern.find("{userId}") != std::string::npos) {
      // The skill's owner is in the path: answered like a missing skill.
      ASSERT_EQ(answer.status, 404u) << answer.body;
      EXPECT_EQ(error_of(answer)["code"], "skill_not_found");
    } else {
      ASSERT_EQ(answer.status, 403u) << answer.body;
      EXPECT_EQ(error_of(answer)["code"], "user_not_allowed");
      auto message = error_of(answer)["message"].get<std::string>();
      EXPECT_NE(message.find("key_b0b000000000"), std::string::npos) << message;
      EXPECT_NE(message.find("'alice'"), std::string::npos) << message;
    }
  }
  EXPECT_TRUE(agent->submitted.empty());
  EXPECT_TRUE(agent->cancelled.empty());
}

TEST_F(AccessGate, AnotherUsersTaskIsTheSame404AsAMissingOne) {
  install_gate();
  const std::string bobs = "Bearer " + bob.key;
  for (const char* target : {"/tasks/task_1", "/tasks/task_1/events", "/tasks/task_1/files",
                             "/tasks/task_1/files/out.txt", "/tasks/task_1/files/..%2f..%2fetc%2fpasswd"}) {
    SCOPED_TRACE(target);
    auto req = get(std::string(target));
    req.headers.emplace_back("Authorization", bobs);
    auto other = run_dispatch(router_, svc, req);
    auto missing_req = get("/tasks/task_9");
    missing_req.headers.emplace_back("Authorization", bobs);
    auto missing = run_dispatch(router_, svc, missing_req);
    ASSERT_EQ(other.status, 404u) << other.body;
    EXPECT_EQ(error_of(other)["code"], "task_not_found");
    EXPECT_EQ(error_of(missing)["code"], "task_not_found");
  }
  http_request cancel;
  cancel.method = "DELETE";
  cancel.path = cancel.target = "/tasks/task_1";
  cancel.request_id = "req_1";
  cancel.headers.emplace_back("Authorization", bobs);
  EXPECT_EQ(run_dispatch(router_, svc, cancel).status, 404u);
  EXPECT_TRUE(agent->cancelled.empty());
}

TEST_F(AccessGate, AnOmittedUserIsTheKeysOnlyUserElse400) {
  install_gate();
  const route* list = nullptr;
  for (const auto& r : router_.routes()) {
    if (r.method == "GET" && r.pattern == "/tasks") list = &r;
  }
  ASSERT_NE(list, nullptr);
  auto req = get("/tasks");
  req.headers.emplace_back("Authorization", "Bearer " + alice.key);
  auto mine = run_dispatch(router_, svc, req);
  ASSERT_EQ(mine.status, 200u) << mine.body;
  EXPECT_EQ(agent->last_query.user_id, "alice");

  // An admin key acts for anyone, so a route about one user must be told
  // which (GET /tasks instead lists everyone's: see below).
  auto as_admin = get("/skills");
  as_admin.headers.emplace_back("Authorization", "Bearer " + admin.key);
  auto refused = run_dispatch(router_, svc, as_admin);
  ASSERT_EQ(refused.status, 400u) << refused.body;
  EXPECT_EQ(error_of(refused)["code"], "user_required");
}

TEST_F(AccessGate, MeSaysWhoTheKeyIs) {
  install_gate();
  auto ask = [&](const issued& key) {
    auto req = get("/me");
    req.headers.emplace_back("Authorization", "Bearer " + key.key);
    auto r = run_dispatch(router_, svc, req);
    EXPECT_EQ(r.status, 200u) << r.body;
    return json::parse(r.body);
  };
  EXPECT_EQ(ask(alice), json::parse(R"({"auth":"keys","keyId":"key_a11ce0000000","label":"label",
                                        "users":["alice"],"admin":false})"));
  EXPECT_EQ(ask(admin)["admin"], true);
  // Without a key, the gate's 401 (what the dashboard's sign-in shows).
  EXPECT_EQ(run_dispatch(router_, svc, get("/me")).status, 401u);
}

TEST_F(AccessGate, AnAdminListsEveryUsersTasksAUserKeyOnlyItsOwn) {
  install_gate();
  auto list = [&](const issued& key) {
    auto req = get("/tasks");
    req.headers.emplace_back("Authorization", "Bearer " + key.key);
    return run_dispatch(router_, svc, req).status;
  };
  ASSERT_EQ(list(admin), 200u);
  EXPECT_EQ(agent->last_query.user_id, "");
  ASSERT_EQ(list(alice), 200u);
  EXPECT_EQ(agent->last_query.user_id, "alice");
}

TEST_F(AccessGate, AnAdminKeyMayActForAnyUserAndReadMetrics) {
  install_gate();
  for (const auto& r : router_.routes()) {
    SCOPED_TRACE(r.method + " " + r.pattern);
    auto answer = call(r, "carol", "Bearer " + admin.key);
    EXPECT_NE(answer.status, 401u) << answer.body;
    EXPECT_NE(answer.status, 403u) << answer.body;
  }
  auto scrape = get("/metrics");
  scrape.headers.emplace_back("Authorization", "Bearer " + admin.key);
  auto answer = run_dispatch(router_, svc, scrape);
  ASSERT_EQ(answer.status, 200u);
  EXPECT_NE(answer.body.find("harness_key_requests_total{key=\"key_ad0000000000\",outcome=\"admitted\"}"),
            std::string::npos);
}

TEST_F(AccessGate, RefusalsAreCountedFromTheFirstScrape) {
  install_gate();
  auto text = metrics->render();
  EXPECT_NE(text.find("harness_auth_refusals_total{reason=\"key_required\"} 0"), std::string::npos) << text;
  EXPECT_NE(text.find("harness_auth_refusals_total{reason=\"invalid_key\"} 0"), std::string::npos);
  (void)run_dispatch(router_, svc, get("/tools"));
  text = metrics->render();
  EXPECT_NE(text.find("harness_auth_refusals_total{reason=\"key_required\"} 1"), std::string::npos) << text;
}

TEST_F(AccessGate, EachKeyHasItsOwnRateLimitWithRetryAfter) {
  harness::testing::fake_clock clock;
  gate_options.limiter = std::make_shared<auth::rate_limiter>(auth::rate_limit{.per_minute = 6, .burst = 2}, clock);
  install_gate();
  auto with = [](http_request r, const std::string& key) {
    r.headers.emplace_back("Authorization", "Bearer " + key);
    return r;
  };
  EXPECT_EQ(run_dispatch(router_, svc, with(get("/tools"), alice.key)).status, 503u);  // no registry: past the gate
  EXPECT_EQ(run_dispatch(router_, svc, with(get("/tools"), alice.key)).status, 503u);
  auto limited = run_dispatch(router_, svc, with(get("/tools"), alice.key));
  ASSERT_EQ(limited.status, 429u) << limited.body;
  EXPECT_EQ(error_of(limited)["code"], "rate_limited");
  EXPECT_EQ(limited.header("Retry-After"), "10");
  // Another key, and the health probes, are not held back by alice's bucket.
  EXPECT_EQ(run_dispatch(router_, svc, with(get("/tools"), bob.key)).status, 503u);
  EXPECT_EQ(run_dispatch(router_, svc, get("/health/live")).status, 200u);
  clock.advance(std::chrono::seconds(10));
  EXPECT_EQ(run_dispatch(router_, svc, with(get("/tools"), alice.key)).status, 503u);
  EXPECT_NE(metrics->render().find("harness_key_requests_total{key=\"key_a11ce0000000\",outcome=\"rate_limited\"} 1"),
            std::string::npos);
}

class engine_health final : public core::health_source {
 public:
  std::string name() const override { return "sandbox"; }
  core::component_health check() const override {
    return {true, true, {{"endpoint", "unix:///var/run/docker.sock"}, {"version", "20.10"}}};
  }
};

TEST_F(AccessGate, HealthAnswersEveryoneButOnlyAnAdminSeesTheDetails) {
  svc.health.push_back(std::make_shared<engine_health>());
  install_gate();
  auto anyone = run_dispatch(router_, svc, get("/health"));
  ASSERT_EQ(anyone.status, 200u) << anyone.body;
  auto summary = json::parse(anyone.body);
  EXPECT_EQ(summary["components"]["sandbox"], (json{{"status", "up"}, {"required", true}}));
  EXPECT_EQ(summary["auth"], "keys");
  for (const auto& key : {std::string("Bearer ") + alice.key, std::string("Bearer junk")}) {
    auto req = get("/health");
    req.headers.emplace_back("Authorization", key);
    auto r = run_dispatch(router_, svc, req);
    EXPECT_EQ(r.status, 200u);  // a probe is never refused
    EXPECT_EQ(r.body.find("docker.sock"), std::string::npos) << r.body;
  }
  auto as_admin = get("/health");
  as_admin.headers.emplace_back("Authorization", "Bearer " + admin.key);
  auto detailed = json::parse(run_dispatch(router_, svc, as_admin).body);
  EXPECT_EQ(detailed["components"]["sandbox"]["endpoint"], "unix:///var/run/docker.sock");
}

TEST_F(AccessGate, WithNoKeyOnLoopbackTheServerRunsOpenAndSaysSo) {
  gate_options.keys = auth::create_memory_key_store({});
  gate_options.open_while_no_keys = true;
  install_gate();
  auto tasks = run_dispatch(router_, svc, make_request("GET", "/tasks?userId=alice"));
  EXPECT_EQ(tasks.status, 200u) << tasks.body;
  EXPECT_EQ(json::parse(run_dispatch(router_, svc, get("/health")).body)["auth"], "open");
  // Open still needs the user named where a route acts for one: there is no
  // key to take it from. (GET /tasks without one lists everyone's.)
  auto unnamed = run_dispatch(router_, svc, get("/skills"));
  EXPECT_EQ(unnamed.status, 400u);
  EXPECT_EQ(error_of(unnamed)["code"], "user_required");
}

TEST_F(AccessGate, AuthKeysWithNoKeyRefusesEverythingButHealth) {
  gate_options.keys = auth::create_memory_key_store({});
  gate_options.open_while_no_keys = false;
  install_gate();
  EXPECT_EQ(run_dispatch(router_, svc, make_request("GET", "/tasks?userId=alice")).status, 401u);
  EXPECT_EQ(json::parse(run_dispatch(router_, svc, get("/health")).body)["auth"], "keys");
}

}  // namespace
}  // namespace harness::http
