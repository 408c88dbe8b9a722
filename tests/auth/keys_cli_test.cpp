#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "auth_test_dir.hpp"
#include "harness/auth/auth_config.hpp"
#include "harness/auth/key_store.hpp"
#include "harness/auth/keys_cli.hpp"
#include "support/child_process.hpp"
#include "support/fake_clock.hpp"

namespace harness::auth {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::temp_dir;

struct cli_run {
  int code;
  std::string out, err;
};

cli_run run(const std::vector<std::string>& args, const fs::path& file) {
  core::setting_sources sources;
  sources.env = {{"API_KEYS_FILE", file.string()}};
  auto specs = auth_setting_specs();
  auto settings = core::settings::resolve(specs, sources);
  EXPECT_TRUE(settings);
  std::ostringstream out, err;
  harness::testing::fake_clock clock;  // 2026-12-01T00:00:00Z
  clock.advance(12h + 43min);
  int code = run_keys_cli(args, *settings, out, err, clock);
  return {code, out.str(), err.str()};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(KeysCli, AddListRevokeRoundTrip) {
  temp_dir dir;
  fs::path file = dir.path / "data" / "api-keys.json";
  auto added = run({"add", "--user", "alice", "--user", "bob", "--name", "ci runner"}, file);
  ASSERT_EQ(added.code, 0) << added.err;
  ASSERT_EQ(added.out.back(), '\n');
  std::string key = added.out.substr(0, added.out.size() - 1);
  EXPECT_TRUE(looks_like_api_key(key)) << added.out;
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string text = read_text(file);
  EXPECT_EQ(text.find(key), std::string::npos) << "the key itself is never stored";
  EXPECT_EQ(text.find(key.substr(3, 20)), std::string::npos);

  auto store = std::move(create_file_key_store(file, core::real_clock()).value());
  auto who = store->authenticate(key);
  ASSERT_TRUE(who);
  EXPECT_EQ(who->users, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(who->label, "ci runner");
  EXPECT_NE(added.err.find(who->key_id), std::string::npos);

  ASSERT_EQ(run({"add", "--admin"}, file).code, 0);
  auto listed = run({"list"}, file);
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find(who->key_id), std::string::npos);
  EXPECT_NE(listed.out.find("ci runner"), std::string::npos);
  EXPECT_NE(listed.out.find("alice,bob"), std::string::npos);
  EXPECT_NE(listed.out.find("2026-12-01T12:43:00Z"), std::string::npos);
  EXPECT_NE(listed.out.find("admin"), std::string::npos);
  EXPECT_EQ(listed.out.find("mh_"), std::string::npos) << "list never shows a key";
  EXPECT_EQ(listed.out.find(to_hex(digest_of(key))), std::string::npos) << "nor a digest";

  auto revoked = run({"revoke", who->key_id}, file);
  ASSERT_EQ(revoked.code, 0) << revoked.err;
  ASSERT_TRUE(store->reload());
  EXPECT_FALSE(store->authenticate(key));
  EXPECT_EQ(store->keys().size(), 1u);
  EXPECT_EQ(run({"list"}, file).out.find(who->key_id), std::string::npos);
}

TEST(KeysCli, ErrorsAreOneLineWithExitCode2) {
  temp_dir dir;
  fs::path file = dir.path / "api-keys.json";
  for (const auto& args : std::vector<std::vector<std::string>>{{"add"},
                                                                {"add", "--user"},
                                                                {"add", "--user", "../etc"},
                                                                {"add", "--user", "a", "--colour"},
                                                                {"revoke"},
                                                                {"revoke", "key_nothere"},
                                                                {"list", "--all"},
                                                                {"rotate"}}) {
    auto r = run(args, file);
    EXPECT_EQ(r.code, 2) << args.front();
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("mcp-harness keys: ", 0), 0u) << r.err;
  }
  EXPECT_FALSE(fs::exists(file)) << "no failed command wrote the file";
  std::ofstream(file) << "{ broken";
  ::chmod(file.c_str(), 0600);
  auto bad = run({"list"}, file);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("API_KEYS_FILE"), std::string::npos);
  EXPECT_EQ(run({"add", "--user", "a"}, file).code, 2);
  EXPECT_EQ(read_text(file), "{ broken") << "a bad file is not overwritten";
  EXPECT_EQ(run({"--help"}, file).code, 0);
  EXPECT_EQ(run({}, file).code, 2);
}

// The real binary: stdout is the key and nothing else; list never shows it.
TEST(KeysCli, EndToEndThroughTheBinary) {
  temp_dir dir;
  fs::path file = dir.path / "keys" / "api-keys.json";
  std::map<std::string, std::string> env{{"ENV_FILE", "/dev/null"},
                                         {"API_KEYS_FILE", file.string()},
                                         {"HARNESS", harness::testing::binary_path("src/mcp-harness")}};
  // stderr goes to a file of its own, so the test sees stdout alone.
  auto shell = [&](const std::string& command) {
    harness::testing::child_process child({"/bin/sh", "-c", command + " 2>\"$ERR\""}, [&] {
      auto e = env;
      e["ERR"] = (dir.path / "stderr.txt").string();
      return e;
    }());
    auto code = child.wait_exit(60s);
    return std::make_pair(code, child.output());
  };
  auto [code, out] = shell(R"("$HARNESS" keys add --user alice --name laptop)");
  ASSERT_EQ(code, 0) << out << read_text(dir.path / "stderr.txt");
  ASSERT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  std::string key = out.substr(0, out.size() - 1);
  EXPECT_TRUE(looks_like_api_key(key)) << out;
  EXPECT_NE(read_text(dir.path / "stderr.txt").find("shown only this once"), std::string::npos);
  EXPECT_EQ(read_text(file).find(key), std::string::npos);

  auto [list_code, listed] = shell(R"("$HARNESS" keys list)");
  ASSERT_EQ(list_code, 0) << listed;
  EXPECT_NE(listed.find("laptop"), std::string::npos) << listed;
  EXPECT_EQ(listed.find(key), std::string::npos);
  EXPECT_EQ(listed.find("mh_"), std::string::npos);

  auto [bad_code, bad] = shell(R"("$HARNESS" keys revoke key_nothere)");
  EXPECT_EQ(bad_code, 2);
  EXPECT_NE(read_text(dir.path / "stderr.txt").find("key_nothere"), std::string::npos);
}

TEST(AuthConfig, SettingsAndTheirErrors) {
  auto load = [](std::map<std::string, std::string> env) {
    core::setting_sources sources;
    sources.env = std::move(env);
    auto specs = auth_setting_specs();
    return load_auth_config(core::settings::resolve(specs, sources).value());
  };
  auto defaults = load({});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->mode, auth_mode::automatic);
  EXPECT_EQ(defaults->keys_file, "data/api-keys.json");
  EXPECT_EQ(defaults->limit.per_minute, 600);
  EXPECT_EQ(defaults->limit.burst, 100);
  EXPECT_EQ(load({{"AUTH", "keys"}})->mode, auth_mode::keys);
  EXPECT_EQ(load({{"AUTH", "none"}})->mode, auth_mode::none);
  EXPECT_EQ(load({{"AUTH", "auto"}})->mode, auth_mode::automatic);
  for (auto [name, value] : {std::pair{"AUTH", "yes"}, std::pair{"RATE_LIMIT_PER_MINUTE", "-1"},
                             std::pair{"RATE_LIMIT_BURST", "0"}, std::pair{"API_KEYS_FILE", ""}}) {
    auto bad = load({{name, value}});
    ASSERT_FALSE(bad) << name;
    EXPECT_NE(bad.error().message.find(name), std::string::npos) << bad.error().message;
  }
}

}  // namespace
}  // namespace harness::auth
