#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "auth_test_dir.hpp"
#include "harness/auth/errors.hpp"
#include "harness/auth/key_file.hpp"

namespace harness::auth {
namespace {

namespace fs = std::filesystem;
using testing::temp_dir;

key_record record(std::string id, std::string user, std::string key) {
  return key_record{std::move(id), "label", {std::move(user)}, false, "2026-12-01T12:00:00Z", digest_of(key)};
}

void write_text(const fs::path& path, const std::string& text, mode_t mode = 0600) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

std::string valid_entry(const std::string& extra = "") {
  return R"({"id": "key_1", "label": "ci", "users": ["alice"], "role": "user", "created": "2026-12-01T12:00:00Z",)"
         R"( "sha256": ")" +
         to_hex(digest_of("k")) + "\"" + extra + "}";
}

TEST(KeyFile, RoundTripsThroughTheFileWithMode600) {
  temp_dir dir;
  fs::path file = dir.path / "data" / "sub" / "api-keys.json";  // parents created
  key_set set{{record("key_1", "alice", "k1"), record("key_2", "bob", "k2")}};
  set.keys[1].admin = true;
  ASSERT_TRUE(write_key_file(file, set));
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto loaded = read_key_file(file);
  ASSERT_TRUE(loaded) << loaded.error().describe();
  ASSERT_EQ(loaded->set.keys.size(), 2u);
  EXPECT_EQ(loaded->set.keys[1].id, "key_2");
  EXPECT_TRUE(loaded->set.keys[1].admin);
  EXPECT_EQ(loaded->set.keys[0].users, std::vector<std::string>{"alice"});
  EXPECT_TRUE(digests_equal(loaded->set.keys[0].sha256, digest_of("k1")));
  EXPECT_TRUE(loaded->warning.empty());
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(file.parent_path()), fs::directory_iterator()), 1);
}

TEST(KeyFile, MissingFileIsAnEmptySet) {
  temp_dir dir;
  auto loaded = read_key_file(dir.path / "none.json");
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(loaded->set.keys.empty());
  EXPECT_FALSE(loaded->signature.exists);
}

TEST(KeyFile, StrictParsingNamesTheSettingAndTheField) {
  struct bad_case {
    std::string text, must_say;
  };
  const std::vector<bad_case> cases = {
      {"{ not json", "not valid JSON"},
      {R"({"version": 1, "keys": )" + std::string(100000, '[') + std::string(100000, ']') + "}",
       "nests deeper than 256 levels"},
      {"[]", "top level"},
      {R"({"version": 2, "keys": []})", "version"},
      {R"({"version": 1})", "\"keys\""},
      {R"({"version": 1, "keys": [], "extra": 1})", "'extra'"},
      {R"({"version": 1, "keys": [)" + valid_entry(R"(, "key": "mh_x")") + "]}", "unknown field 'key'"},
      {R"({"version": 1, "keys": [{"id": "key_1"}]})", "keys[0].role is missing"},
      {R"({"version": 1, "keys": [{"id": 5, "role": "user", "created": "x", "sha256": "x"}]})",
       "keys[0].id is not a string"},
      {R"({"version": 1, "keys": [{"id": "key_1", "role": "user", "users": ["a"], "created":)"
       R"( "2026-12-01T12:00:00Z", "sha256": "abc"}]})",
       "keys[0].sha256 is not 64 hex digits"},
      {R"({"version": 1, "keys": [{"id": "key_1", "role": "root", "users": ["a"], "created":)"
       R"( "2026-12-01T12:00:00Z", "sha256": "abc"}]})",
       "role"},
      {R"({"version": 1, "keys": [{"id": "key_1", "role": "user", "created": "2026-12-01T12:00:00Z", "sha256": ")" +
           to_hex(digest_of("k")) + "\"}]}",
       "without users"},
      {R"({"version": 1, "keys": [)" + valid_entry() + ", " + valid_entry() + "]}", "used twice"},
  };
  temp_dir dir;
  fs::path file = dir.path / "api-keys.json";
  for (const auto& c : cases) {
    write_text(file, c.text);
    auto loaded = read_key_file(file);
    ASSERT_FALSE(loaded) << c.text;
    EXPECT_EQ(loaded.error().code, errc::invalid_key_file);
    EXPECT_NE(loaded.error().message.find("API_KEYS_FILE " + file.string()), std::string::npos)
        << loaded.error().message;
    EXPECT_NE(loaded.error().message.find(c.must_say), std::string::npos) << loaded.error().message;
  }
  write_text(file, R"({"version": 1, "keys": [)" + valid_entry() + "]}");
  EXPECT_TRUE(read_key_file(file));
}

TEST(KeyFile, GroupWritableFileIsRefusedReadableOnlyWarned) {
  temp_dir dir;
  fs::path file = dir.path / "api-keys.json";
  ASSERT_TRUE(write_key_file(file, key_set{{record("key_1", "alice", "k")}}));
  ::chmod(file.c_str(), 0620);
  auto refused = read_key_file(file);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("writable by group or others"), std::string::npos);
  ::chmod(file.c_str(), 0644);
  auto warned = read_key_file(file);
  ASSERT_TRUE(warned);
  EXPECT_NE(warned->warning.find("readable by group or others"), std::string::npos);
}

TEST(KeyFile, UpdateLeavesTheFileAloneWhenTheChangeFails) {
  temp_dir dir;
  fs::path file = dir.path / "api-keys.json";
  ASSERT_TRUE(write_key_file(file, key_set{{record("key_1", "alice", "k")}}));
  auto before = signature_of(file);
  auto failed = update_key_file(file, [](key_set& set) -> status {
    set.keys.clear();
    return make_error(errc::key_file_write_failed, "refused");
  });
  EXPECT_FALSE(failed);
  EXPECT_EQ(signature_of(file), before);
  ASSERT_TRUE(update_key_file(file, [](key_set& set) -> status {
    set.keys.push_back(record("key_2", "bob", "k2"));
    return {};
  }));
  EXPECT_EQ(read_key_file(file)->set.keys.size(), 2u);
}

TEST(KeyFile, FormatsUtcTimes) {
  EXPECT_EQ(format_utc(std::chrono::system_clock::time_point{} + std::chrono::seconds(1'764'592'980)),
            "2025-12-01T12:43:00Z");
}

}  // namespace
}  // namespace harness::auth
