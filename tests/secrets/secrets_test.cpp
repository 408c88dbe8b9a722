#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "harness/pii/vault_seal.hpp"
#include "harness/secrets/errors.hpp"
#include "harness/secrets/secret_store.hpp"
#include "harness/secrets/secrets_cli.hpp"
#include "harness/store/store_config.hpp"
#include "harness/store/task_store.hpp"
#include "support/child_process.hpp"
#include "support/fake_clock.hpp"
#include "support/run_sync.hpp"

namespace harness::secrets {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using harness::testing::run_sync;

constexpr const char* key_hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
constexpr const char* value = "ghp_Alice0123456789";

struct temp_dir {
  fs::path path;
  temp_dir() {
    static std::atomic<int> counter{0};
    path =
        fs::temp_directory_path() / ("harness-secrets-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

core::settings settings_for(const fs::path& db) {
  core::setting_sources sources;
  sources.env = {{"STORE_PATH", db.string()}, {"VAULT_KEY", key_hex}};
  auto specs = store::store_setting_specs();
  for (auto& spec : pii::vault_setting_specs()) specs.push_back(spec);
  return core::settings::resolve(specs, sources).value();
}

std::shared_ptr<const pii::vault_sealer> sealer() {
  std::string key;
  for (std::size_t i = 0; i < 64; i += 2)
    key.push_back(static_cast<char>(std::stoi(std::string(key_hex + i, 2), nullptr, 16)));
  return std::make_shared<const pii::vault_sealer>(pii::vault_sealer::create(key).value());
}

class SecretStore : public ::testing::Test {
 protected:
  temp_dir dir;
  boost::asio::io_context io;
  harness::testing::fake_clock clock;
  std::shared_ptr<store::task_store> db = store::open_sqlite_store(dir.path / "harness.db").value();
  std::vector<std::string> changed;
  secret_store secrets{db, sealer(), clock, [this](const std::string& user, const std::string& name) {
                         changed.push_back(user + "/" + name);
                       }};
};

TEST_F(SecretStore, SetListValuesAndRemoveAreTheUsersOwn) {
  ASSERT_TRUE(run_sync(io, secrets.set("alice", "GH_TOKEN", value)));
  ASSERT_TRUE(run_sync(io, secrets.set("alice", "API_KEY", "another-value-1")));
  ASSERT_TRUE(run_sync(io, secrets.set("bob", "GH_TOKEN", "bobs-value-12345")));
  auto listed = run_sync(io, secrets.list("alice")).value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].name, "API_KEY");
  EXPECT_EQ(listed[1].name, "GH_TOKEN");
  EXPECT_EQ(listed[1].updated_ms, clock.epoch_ms());

  auto alices = run_sync(io, secrets.values("alice", {"GH_TOKEN", "NOT_SET"})).value();
  EXPECT_EQ(alices, (std::map<std::string, std::string>{{"GH_TOKEN", value}}));
  EXPECT_EQ(run_sync(io, secrets.values("bob", {"GH_TOKEN"})).value().at("GH_TOKEN"), "bobs-value-12345");
  EXPECT_TRUE(run_sync(io, secrets.values("carol", {"GH_TOKEN"})).value().empty());

  ASSERT_TRUE(run_sync(io, secrets.remove("alice", "GH_TOKEN")));
  auto again = run_sync(io, secrets.remove("alice", "GH_TOKEN"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, errc::secret_not_found);
  EXPECT_TRUE(run_sync(io, secrets.values("alice", {"GH_TOKEN"})).value().empty());
  EXPECT_EQ(changed, (std::vector<std::string>{"alice/GH_TOKEN", "alice/API_KEY", "bob/GH_TOKEN", "alice/GH_TOKEN"}));
}

TEST_F(SecretStore, TheFileHoldsSealsAndARowMovedToAnotherUserDoesNotOpen) {
  ASSERT_TRUE(run_sync(io, secrets.set("alice", "GH_TOKEN", value)));
  auto row = run_sync(io, db->get_credential("alice", "secret", "GH_TOKEN")).value();
  ASSERT_TRUE(row);
  EXPECT_EQ(row->sealed.find(value), std::string::npos);
  EXPECT_NE(row->sealed.find("aes-256-gcm"), std::string::npos) << row->sealed;
  // Someone with write access to the database copies Alice's row to Bob.
  auto moved = *row;
  moved.user_id = "bob";
  ASSERT_TRUE(run_sync(io, db->put_credential(moved)));
  auto bobs = run_sync(io, secrets.values("bob", {"GH_TOKEN"}));
  ASSERT_FALSE(bobs);
  EXPECT_EQ(bobs.error().code, errc::secret_unreadable);
  EXPECT_EQ(bobs.error().describe().find(value), std::string::npos);
  // A plain (unsealed) row does not pass either.
  ASSERT_TRUE(run_sync(
      io, db->put_credential({"carol", "secret", "GH_TOKEN", R"({"user":"carol","name":"GH_TOKEN","value":"x"})", 1})));
  EXPECT_FALSE(run_sync(io, secrets.values("carol", {"GH_TOKEN"})));
  db.reset();
  EXPECT_EQ(read_bytes(dir.path / "harness.db").find(value), std::string::npos);
}

TEST_F(SecretStore, BadNamesAndValuesAreRefusedWithWhy) {
  for (const std::string& name :
       {std::string(), std::string("9LIVES"), std::string("with-dash"), std::string("a b"), std::string(65, 'A')}) {
    auto set = run_sync(io, secrets.set("alice", name, value));
    ASSERT_FALSE(set) << name;
    EXPECT_EQ(set.error().code, errc::invalid_secret_name) << name;
  }
  for (const std::string& bad : {std::string("short"), std::string(16385, 'x'), std::string("has\0nul-inside", 14),
                                 std::string("bad utf8 \xff\xfe here")}) {
    auto set = run_sync(io, secrets.set("alice", "TOKEN", bad));
    ASSERT_FALSE(set);
    EXPECT_EQ(set.error().code, errc::invalid_secret_value);
    EXPECT_FALSE(set.error().hint.empty());
  }
  EXPECT_TRUE(changed.empty());
}

struct cli_run {
  int code;
  std::string out, err;
};

cli_run run_cli(const std::vector<std::string>& args, const fs::path& db, const std::string& input = {}) {
  std::istringstream in(input);
  std::ostringstream out, err;
  harness::testing::fake_clock clock;
  int code = run_secrets_cli(args, settings_for(db), in, out, err, clock);
  return {code, out.str(), err.str()};
}

TEST(SecretsCli, SetListDeleteWithTheValueFromStandardInput) {
  temp_dir dir;
  const auto db = dir.path / "harness.db";
  auto set = run_cli({"set", "--user", "alice", "GH_TOKEN"}, db, std::string(value) + "\n");
  ASSERT_EQ(set.code, 0) << set.err;
  auto listed = run_cli({"list", "--user", "alice"}, db);
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_EQ(listed.out.rfind("GH_TOKEN\t", 0), 0u) << listed.out;
  EXPECT_EQ(listed.out.find(value), std::string::npos);

  // What the command line stored, the server's store opens (one trailing newline dropped).
  boost::asio::io_context io;
  harness::testing::fake_clock clock;
  secret_store secrets(store::open_sqlite_store(db).value(), sealer(), clock);
  EXPECT_EQ(run_sync(io, secrets.values("alice", {"GH_TOKEN"})).value().at("GH_TOKEN"), value);

  EXPECT_EQ(run_cli({"delete", "--user", "alice", "GH_TOKEN"}, db).code, 0);
  auto gone = run_cli({"delete", "--user", "alice", "GH_TOKEN"}, db);
  EXPECT_EQ(gone.code, 1);
  EXPECT_NE(gone.err.find("no secret named GH_TOKEN"), std::string::npos) << gone.err;
}

TEST(SecretsCli, UsageErrorsSayWhatIsWrong) {
  temp_dir dir;
  const auto db = dir.path / "harness.db";
  struct bad_case {
    std::vector<std::string> args;
    std::string input, says;
  };
  const std::vector<bad_case> cases = {
      {{"set", "GH_TOKEN"}, value, "needs --user ID and a NAME"},
      {{"set", "--user", "alice"}, value, "needs --user ID and a NAME"},
      {{"set", "--user", "alice", "GH_TOKEN", value}, "", "needs --user ID and a NAME"},
      {{"set", "--user", "al ice", "GH_TOKEN"}, value, "invalid --user"},
      {{"set", "--user", "alice", "9X"}, value, "invalid secret name"},
      {{"set", "--user", "alice", "GH_TOKEN"}, "short\n", "8 to 16384 bytes"},
      {{"set", "--user", "alice", "GH_TOKEN"}, std::string(100000, 'x'), "8 to 16384 bytes"},
      {{"show", "--user", "alice"}, "", "unknown secrets command"},
      {{"list", "--user", "alice", "--all"}, "", "unknown option"},
  };
  for (const auto& c : cases) {
    auto r = run_cli(c.args, db, c.input);
    EXPECT_EQ(r.code, 2) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << " -> " << r.err;
  }
}

TEST(SecretsCli, ThroughTheBinaryTheValueComesFromStandardInputOnly) {
  temp_dir dir;
  const auto db = dir.path / "harness.db";
  std::map<std::string, std::string> env{{"ENV_FILE", "/dev/null"},
                                         {"STORE_PATH", db.string()},
                                         {"VAULT_KEY", key_hex},
                                         {"HARNESS", harness::testing::binary_path("src/mcp-harness")}};
  auto shell = [&](const std::string& command) {
    harness::testing::child_process child({"/bin/sh", "-c", command}, env);
    auto code = child.wait_exit(60s);
    return std::make_pair(code, child.output());
  };
  auto [code, out] =
      shell(std::string("printf '%s\\n' '") + value + R"(' | "$HARNESS" secrets set --user alice GH_TOKEN)");
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("secret GH_TOKEN set for alice"), std::string::npos) << out;
  auto [list_code, listed] = shell(R"("$HARNESS" secrets list --user alice)");
  ASSERT_EQ(list_code, 0) << listed;
  EXPECT_NE(listed.find("GH_TOKEN"), std::string::npos) << listed;
  EXPECT_EQ(listed.find(value), std::string::npos);
  EXPECT_EQ((read_bytes(db) + read_bytes(fs::path(db.string() + "-wal"))).find(value), std::string::npos);
}

}  // namespace
}  // namespace harness::secrets
