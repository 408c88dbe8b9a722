// Task workspaces on real temporary folders and on PostgreSQL rows:
// write-back, listing, download, the init files of a continuing task, and the
// sweep by age.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <thread>

#include "exec_files.hpp"
#include "harness/skills/errors.hpp"
#include "harness/skills/sandbox_files.hpp"
#include "harness/skills/skill_library.hpp"
#include "harness/skills/workspace_store.hpp"
#include "skills/folder_backends.hpp"
#include "skills/skills_test_support.hpp"

namespace harness::skills {
namespace {

using namespace testing;
using json = nlohmann::json;

// The fixture of every test; `backend_kind()` says where the workspaces live.
class WorkspaceStoreBase : public ::testing::Test {
 protected:
  virtual backend backend_kind() const = 0;

  void SetUp() override {
    config.dir = temp.path() / "workspace";
    config.caps = {.max_file_bytes = 100, .max_total_bytes = 250, .max_files = 4};
    storage = std::make_unique<folder_backend>(backend_kind());
    tasks = storage->open("workspace", config.dir);
    store = create_workspace_store(config, tasks);
  }
  fs::path task_dir(const std::string& task) const { return config.dir / task; }
  bool on_disk() const { return backend_kind() == backend::disk; }

  // Sets the modification time of every file of the task's workspace (or of `rel` only).
  void age(const std::string& task, std::chrono::hours by, const std::string& rel = "") {
    storage->age("workspace", config.dir, task, rel, by);
  }

  // A library beside the store, in the same place.
  std::shared_ptr<skill_library> library_beside(const skill_config& skills_config) {
    return create_skill_library(skills_config, storage->open("skills", skills_config.dir / "users"));
  }

  temp_folder temp;
  workspace_config config;
  std::unique_ptr<folder_backend> storage;
  std::shared_ptr<folder_set> tasks;
  std::shared_ptr<workspace_store> store;
};

// The contract: every backend. Symlinks planted on the host: disk only.
using WorkspaceStoreTest = on_each_backend<WorkspaceStoreBase>;
using WorkspaceStoreDiskTest = on_disk_only<WorkspaceStoreBase>;

INSTANTIATE_TEST_SUITE_P(Backends, WorkspaceStoreTest, all_backends,
                         [](const auto& param_info) { return backend_name(param_info.param); });

TEST_P(WorkspaceStoreTest, ApplyListReadRoundTrip) {
  auto report = store->apply_changes(
      "task_1", {write_change("workspace", "out/report.csv", "a,b\n1,2\n"),
                 write_change("workspace", "notes.txt", "hi"), write_change("skills", "s/x.js", "not mine")});
  EXPECT_EQ(report.written, (std::vector<std::string>{"out/report.csv", "notes.txt"}));
  auto list = store->list("task_1");
  ASSERT_TRUE(list) << list.error().describe();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0]["path"], "notes.txt");
  EXPECT_EQ((*list)[0]["size"], 2);
  EXPECT_EQ((*list)[1]["path"], "out/report.csv");
  EXPECT_TRUE((*list)[1]["modified"].get<std::string>().ends_with("Z"));
  EXPECT_EQ(store->read("task_1", "out/report.csv").value(), "a,b\n1,2\n");
  EXPECT_EQ(store->read("task_1", "missing.txt").error().code, harness::skills::errc::file_not_found);
  EXPECT_EQ(store->read("task_1", "out").error().code, harness::skills::errc::path_conflict);
  EXPECT_EQ(store->read("task_1", "../task_1/notes.txt").error().code, harness::skills::errc::invalid_path);
  EXPECT_EQ(store->read("task_2", "notes.txt").error().code, harness::skills::errc::workspace_not_found);
  EXPECT_EQ(store->list("task_2").error().code, harness::skills::errc::workspace_not_found);
  EXPECT_EQ(store->list("..").error().code, harness::skills::errc::invalid_task_id);
}

TEST_P(WorkspaceStoreTest, TheSameRulesAsSkillsWithItsOwnCaps) {
  auto report = store->apply_changes(
      "task_1", {write_change("workspace", "../escape.txt", "x"), write_change("workspace", "/abs", "x"),
                 write_change("workspace", "big.bin", std::string(101, 'x')),
                 write_change("workspace", "examples/x.txt", "fine here: only /skills has read-only examples"),
                 write_change("workspace", "a.txt", std::string(100, 'a')),
                 write_change("workspace", "b.txt", std::string(100, 'b')),
                 write_change("workspace", "c.txt", std::string(100, 'c'))});
  std::map<std::string, std::string> refused;
  for (const auto& r : report.refused) refused[r.path] = r.reason;
  EXPECT_EQ(refused, (std::map<std::string, std::string>{{"../escape.txt", "parent_segment"},
                                                         {"/abs", "absolute_path"},
                                                         {"big.bin", "file_too_large"},
                                                         {"c.txt", "total_size_exceeded"}}));
  EXPECT_EQ(report.written, (std::vector<std::string>{"examples/x.txt", "a.txt", "b.txt"}));
  EXPECT_FALSE(fs::exists(config.dir / "escape.txt"));
}

TEST_P(WorkspaceStoreTest, InitFilesGiveAContinuingTaskItsFiles) {
  store->apply_changes("task_1",
                       {write_change("workspace", "data/a.json", "[1]"), write_change("workspace", "b.txt", "b")});
  auto files = store->init_files("task_1");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].root, "workspace");
  EXPECT_EQ(files[0].path, "b.txt");
  EXPECT_EQ(files[1].path, "data/a.json");
  EXPECT_EQ(files[1].content, "[1]");
  EXPECT_TRUE(store->init_files("new_task").empty());
  EXPECT_TRUE(store->init_files("..").empty());
}

TEST_P(WorkspaceStoreTest, RemoveDeletesTheWorkspace) {
  store->apply_changes("task_1", {write_change("workspace", "a.txt", "a")});
  ASSERT_TRUE(store->remove("task_1"));
  EXPECT_EQ(store->list("task_1").error().code, harness::skills::errc::workspace_not_found);
  EXPECT_FALSE(fs::exists(task_dir("task_1")));
  EXPECT_TRUE(store->remove("task_1"));  // already gone: fine
  EXPECT_EQ(store->remove("..").error().code, harness::skills::errc::invalid_task_id);
  if (on_disk()) {
    EXPECT_TRUE(fs::exists(config.dir));
  }
}

TEST_P(WorkspaceStoreTest, SweepRemovesOnlyWorkspacesPastTheRetention) {
  store->apply_changes("old", {write_change("workspace", "a/b.txt", "x")});
  store->apply_changes("fresh", {write_change("workspace", "a.txt", "x")});
  store->apply_changes("mixed", {write_change("workspace", "old.txt", "x"), write_change("workspace", "new.txt", "y")});
  age("old", std::chrono::hours(25));
  age("fresh", std::chrono::hours(1));
  age("mixed", std::chrono::hours(48));
  age("mixed", std::chrono::hours(2), "new.txt");
  if (on_disk()) {
    // Only a folder can be empty, and only the disk has loose files beside the workspaces.
    fs::create_directories(task_dir("empty_old"));
    fs::last_write_time(task_dir("empty_old"), fs::file_time_type::clock::now() - std::chrono::hours(30));
    write_text(config.dir / "README.md", "kept");
    fs::last_write_time(config.dir / "README.md", fs::file_time_type::clock::now() - std::chrono::hours(100));
  }

  EXPECT_EQ(store->sweep(std::chrono::hours(24), std::chrono::system_clock::now()), on_disk() ? 2u : 1u);
  EXPECT_EQ(store->list("old").error().code, harness::skills::errc::workspace_not_found);
  EXPECT_FALSE(fs::exists(task_dir("empty_old")));
  EXPECT_EQ(store->read("fresh", "a.txt").value(), "x");
  EXPECT_EQ(store->read("mixed", "old.txt").value(), "x");  // its newest file is recent
  if (on_disk()) {
    EXPECT_TRUE(fs::exists(config.dir / "README.md"));
  }
  EXPECT_EQ(store->sweep(std::chrono::hours(24), std::chrono::system_clock::now()), 0u);
}

TEST_F(WorkspaceStoreDiskTest, SweepNeverFollowsASymlinkedWorkspace) {
  fs::path outside = temp.path() / "outside";
  write_text(outside / "precious.txt", "keep");
  fs::last_write_time(outside / "precious.txt", fs::file_time_type::clock::now() - std::chrono::hours(100));
  fs::create_directory_symlink(outside, task_dir("linked"));
  store->sweep(std::chrono::hours(1), std::chrono::system_clock::now());
  EXPECT_EQ(read_text(outside / "precious.txt"), "keep");
}

TEST(SharedWorkspaces, ReplicasWritingOneTaskTakeTurnsSoItsCapsHold) {
  // Two stores on one database, as two replicas: eight writers of one file each, four files at most.
  auto url = harness::testing::postgres_server::shared().create_database();
  workspace_config config;
  config.caps = {.max_file_bytes = 100, .max_total_bytes = 1000, .max_files = 4};
  auto open = [&]() -> std::shared_ptr<workspace_store> {
    auto opened = store::create_pg_workspace_store(url, config);
    if (!opened) throw std::runtime_error(opened.error().describe());
    return std::move(*opened);
  };
  std::shared_ptr<workspace_store> replicas[] = {open(), open()};
  std::atomic<std::size_t> written{0};
  std::vector<std::thread> writers;
  for (int i = 0; i < 8; ++i) {
    writers.emplace_back([&, i] {
      auto report =
          replicas[i % 2]->apply_changes("task_1", {write_change("workspace", "f" + std::to_string(i) + ".txt", "x")});
      written += report.written.size();
    });
  }
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(written, 4u);
  EXPECT_EQ(replicas[1]->list("task_1").value().size(), 4u);
  // What one wrote the other reads.
  for (const auto& file : replicas[0]->list("task_1").value()) {
    EXPECT_EQ(replicas[1]->read("task_1", file["path"]).value(), "x");
  }
}

// A store whose sweep reports to the test; everything else is unused.
class counting_store final : public workspace_store {
 public:
  std::function<void()> on_sweep;
  std::atomic<int> sweeps{0};
  result<json> list(const std::string&) const override { return json::array(); }
  result<std::string> read(const std::string&, const std::string&) const override { return std::string(); }
  std::vector<bridge::init_file> init_files(const std::string&) const override { return {}; }
  apply_report apply_changes(const std::string&, const std::vector<bridge::file_change>&) override { return {}; }
  status remove(const std::string&) override { return {}; }
  std::size_t sweep(std::chrono::seconds, core::system_time) override {
    ++sweeps;
    if (on_sweep) on_sweep();
    return 0;
  }
};

TEST(Sweeper, SweepsOnTheWorkerAndStops) {
  boost::asio::io_context io;
  boost::asio::thread_pool pool(1);
  auto store = std::make_shared<counting_store>();
  std::unique_ptr<sweeper> sweeper;
  std::thread::id sweep_thread;
  // The first sweep runs at once; the second comes after a short interval and stops the loop.
  store->on_sweep = [&] {
    sweep_thread = std::this_thread::get_id();
    if (store->sweeps == 2) sweeper->stop();
  };
  sweeper = start_sweeper(store, core::real_clock(), io.get_executor(), pool.get_executor(), std::chrono::seconds(0),
                          std::chrono::hours(1));
  io.run();  // returns once the loop has ended
  pool.join();
  EXPECT_EQ(store->sweeps, 2);
  EXPECT_TRUE(sweep_thread != std::this_thread::get_id());  // ran on the pool
}

TEST(Sweeper, StopBeforeTheFirstIntervalEndsTheLoop) {
  boost::asio::io_context io;
  boost::asio::thread_pool pool(1);
  auto store = std::make_shared<counting_store>();
  auto sweeper = start_sweeper(store, core::real_clock(), io.get_executor(), pool.get_executor(), std::chrono::hours(1),
                               std::chrono::hours(1));
  store->on_sweep = [&] { sweeper->stop(); };
  io.run();  // would wait an hour if stop() did not cancel the timer
  pool.join();
  EXPECT_EQ(store->sweeps, 1);
}

TEST_P(WorkspaceStoreTest, ExecFilesGoToTheirRoots) {
  skill_config skills_config;
  skills_config.dir = temp.path() / "skills";
  auto library = library_beside(skills_config);
  std::vector<bridge::file_change> files{write_change("skills", "csv/SKILL.md", skill_md("csv", "d")),
                                         write_change("workspace", "out.txt", "o"),
                                         write_change("tmp", "x", "elsewhere")};
  auto report = apply_exec_files(library.get(), store.get(), "alice", "task_1", files);
  EXPECT_EQ(report.skills.written, (std::vector<std::string>{"csv/SKILL.md"}));
  EXPECT_EQ(report.workspace.written, (std::vector<std::string>{"out.txt"}));
  EXPECT_TRUE(report.workspace.refused.empty());
  ASSERT_EQ(report.other_roots.size(), 1u);
  EXPECT_EQ(report.other_roots[0].reason, "unknown_root");
  EXPECT_FALSE(report.clean());
  auto j = report.to_json();
  EXPECT_EQ(j["skills"]["written"][0], "csv/SKILL.md");
  EXPECT_EQ(j["otherRoots"][0]["path"], "tmp/x");
  auto flat = report.to_sandbox_json();
  EXPECT_EQ(flat["written"], json::array({"/skills/csv/SKILL.md", "/workspace/out.txt"}));
  EXPECT_EQ(flat["refused"][0]["path"], "/tmp/x");
  EXPECT_EQ(flat["refused"][0]["reason"], "unknown_root");
  auto without = apply_exec_files(nullptr, nullptr, "alice", "task_1", files);
  EXPECT_EQ(without.skills.refused[0].reason, "skills_unavailable");
  EXPECT_EQ(without.workspace.refused[0].reason, "workspace_unavailable");
}

TEST_P(WorkspaceStoreTest, TheAgentsViewOfSkillsAndWorkspaces) {
  skill_config skills_config;
  skills_config.dir = temp.path() / "skills";
  write_text(skills_config.dir / "examples/data-processor/SKILL.md", skill_md("data-processor", "Summarises."));
  std::shared_ptr<skill_library> library = library_beside(skills_config);
  auto files = create_sandbox_files(library, store);
  auto saved = files->apply("alice", "task_1",
                            {write_change("skills", "csv/SKILL.md", skill_md("csv", "Writes CSV.")),
                             write_change("skills", "broken/index.js", "1"), write_change("workspace", "out.txt", "o"),
                             write_change("workspace", "../x", "o")});
  EXPECT_EQ(saved["written"], json::array({"/skills/csv/SKILL.md", "/skills/broken/index.js", "/workspace/out.txt"}));
  ASSERT_EQ(saved["refused"].size(), 1u);
  EXPECT_EQ(saved["refused"][0]["path"], "/workspace/../x");
  EXPECT_EQ(saved["refused"][0]["reason"], "parent_segment");

  auto briefs = files->skills("alice");
  ASSERT_EQ(briefs.size(), 3u);
  EXPECT_EQ(briefs[0].name, "broken");
  EXPECT_TRUE(briefs[0].description.starts_with("[broken: no SKILL.md")) << briefs[0].description;
  EXPECT_EQ(briefs[1].path, "/skills/csv");
  EXPECT_EQ(briefs[1].description, "Writes CSV.");
  EXPECT_EQ(briefs[2].path, "/skills/examples/data-processor");
  EXPECT_EQ(files->skills("bob").size(), 1u);

  auto init = files->init_files("alice", "task_1");
  std::vector<std::string> paths;
  for (const auto& f : init) paths.push_back(f.root + ":" + f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"skills:broken/index.js", "skills:csv/SKILL.md", "workspace:out.txt"}));
  auto shared = files->shared_files();
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].path, "examples/data-processor/SKILL.md");
  auto none = create_sandbox_files(nullptr, nullptr);
  EXPECT_TRUE(none->skills("alice").empty());
  EXPECT_TRUE(none->init_files("alice", "task_1").empty());
  EXPECT_TRUE(none->shared_files().empty());
  EXPECT_EQ(none->apply("alice", "task_1", {write_change("skills", "a/b", "x")})["refused"][0]["reason"],
            "skills_unavailable");
}

}  // namespace
}  // namespace harness::skills
