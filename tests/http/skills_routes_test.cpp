// The /skills routes run every library call (files, or PostgreSQL with
// STORE_URL: both block) on the blocking pool, never on the I/O thread.
#include <gtest/gtest.h>

#include <thread>

#include <boost/asio/thread_pool.hpp>

#include "harness/http/api.hpp"
#include "harness/http/services.hpp"
#include "harness/skills/skill_library.hpp"
#include "http/run_dispatch.hpp"

namespace harness::http {
namespace {

// Records the thread of each call; answers like a library with one skill.
class thread_recording_library final : public skills::skill_library {
 public:
  mutable std::vector<std::thread::id> threads;
  result<nlohmann::json> list(const std::string&) const override {
    threads.push_back(std::this_thread::get_id());
    return nlohmann::json::array();
  }
  result<nlohmann::json> get(const std::string&, const std::string& name) const override {
    threads.push_back(std::this_thread::get_id());
    return nlohmann::json{{"name", name}};
  }
  result<std::string> read_file(const std::string&, const std::string&, const std::string&) const override {
    threads.push_back(std::this_thread::get_id());
    return std::string("text");
  }
  status remove(const std::string&, const std::string&) override {
    threads.push_back(std::this_thread::get_id());
    return {};
  }
  std::vector<bridge::init_file> init_files(const std::string&) const override { return {}; }
  std::vector<bridge::init_file> example_files() const override { return {}; }
  skills::apply_report apply_changes(const std::string&, const std::vector<bridge::file_change>&) override {
    return {};
  }
};

TEST(SkillsRoutes, EveryLibraryCallRunsOnTheBlockingPool) {
  boost::asio::thread_pool pool(1);
  auto library = std::make_shared<thread_recording_library>();
  services svc{core::real_clock()};
  svc.skills = library;
  svc.blocking = pool.get_executor();
  auto routes = make_api_router();
  auto list = get("/skills");
  list.query["userId"] = "alice";
  EXPECT_EQ(run_dispatch(routes, svc, list).status, 200u);
  EXPECT_EQ(run_dispatch(routes, svc, get("/skills/alice/notes")).status, 200u);
  EXPECT_EQ(run_dispatch(routes, svc, get("/skills/alice/notes/files/SKILL.md")).status, 200u);
  EXPECT_EQ(run_dispatch(routes, svc, make_request("DELETE", "/skills/alice/notes")).status, 200u);
  ASSERT_EQ(library->threads.size(), 4u);
  for (auto id : library->threads) EXPECT_NE(id, std::this_thread::get_id());
  pool.join();
}

}  // namespace
}  // namespace harness::http
