#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "auth_test_dir.hpp"
#include "harness/auth/key_store.hpp"
#include "support/fake_clock.hpp"

namespace harness::auth {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::temp_dir;

struct fixture {
  temp_dir dir;
  fs::path file = dir.path / "api-keys.json";
  harness::testing::fake_clock clock;
  std::vector<std::string> warnings;
  file_key_store_options options() {
    file_key_store_options o;
    o.warn = [this](const std::string& line) { warnings.push_back(line); };
    return o;
  }
};

key_record record(std::string id, std::vector<std::string> users, const std::string& key, bool admin = false) {
  return key_record{std::move(id), "label", std::move(users), admin, "2026-12-01T12:00:00Z", digest_of(key)};
}

TEST(KeyStore, AuthenticatesRightKeyOnly) {
  fixture f;
  std::string alice_key = *generate_api_key(), admin_key = *generate_api_key();
  ASSERT_TRUE(
      write_key_file(f.file, key_set{{record("key_a", {"alice"}, alice_key), record("key_b", {}, admin_key, true)}}));
  auto store = create_file_key_store(f.file, f.clock, f.options());
  ASSERT_TRUE(store) << store.error().describe();
  auto alice = (*store)->authenticate(alice_key);
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->key_id, "key_a");
  EXPECT_EQ(alice->users, std::vector<std::string>{"alice"});
  EXPECT_FALSE(alice->admin);
  EXPECT_TRUE((*store)->authenticate(admin_key)->admin);
  EXPECT_FALSE((*store)->authenticate(*generate_api_key()));  // well formed, unknown
  EXPECT_FALSE((*store)->authenticate(""));
  EXPECT_FALSE((*store)->authenticate(alice_key.substr(0, 20)));
  EXPECT_FALSE((*store)->authenticate(alice_key + " "));
  EXPECT_FALSE((*store)->authenticate(std::string(10000, 'a')));
  EXPECT_EQ((*store)->keys().size(), 2u);
}

TEST(KeyStore, FollowsChangesAtMostOncePerInterval) {
  fixture f;
  std::string first = *generate_api_key(), second = *generate_api_key();
  ASSERT_TRUE(write_key_file(f.file, key_set{{record("key_a", {"alice"}, first)}}));
  auto store = std::move(create_file_key_store(f.file, f.clock, f.options()).value());
  ASSERT_TRUE(store->authenticate(first));

  // Revoke the first key, add a second one.
  ASSERT_TRUE(write_key_file(f.file, key_set{{record("key_b", {"bob"}, second)}}));
  EXPECT_TRUE(store->authenticate(first)) << "no check before the interval has passed";
  f.clock.advance(1s);
  EXPECT_FALSE(store->authenticate(first)) << "revoked";
  EXPECT_EQ(store->authenticate(second)->key_id, "key_b");

  // Removing the file removes every key.
  fs::remove(f.file);
  f.clock.advance(1s);
  EXPECT_FALSE(store->authenticate(second));
  EXPECT_TRUE(f.warnings.empty());
}

TEST(KeyStore, BadFileKeepsTheLastGoodSetAndWarnsOnce) {
  fixture f;
  std::string key = *generate_api_key();
  ASSERT_TRUE(write_key_file(f.file, key_set{{record("key_a", {"alice"}, key)}}));
  auto store = std::move(create_file_key_store(f.file, f.clock, f.options()).value());
  std::ofstream(f.file, std::ios::trunc) << "{ broken";
  for (int i = 0; i < 3; ++i) {
    f.clock.advance(2s);
    EXPECT_TRUE(store->authenticate(key));
  }
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_NE(f.warnings[0].find("API_KEYS_FILE"), std::string::npos);
  EXPECT_NE(f.warnings[0].find("keeping the 1 keys"), std::string::npos) << f.warnings[0];
  auto reloaded = store->reload();
  ASSERT_FALSE(reloaded);
  EXPECT_EQ(reloaded.error().code, errc::invalid_key_file);
  EXPECT_EQ(f.warnings.size(), 1u);

  // Fixed: the new set applies.
  ASSERT_TRUE(write_key_file(f.file, key_set{}));
  f.clock.advance(1s);
  EXPECT_FALSE(store->authenticate(key));
}

TEST(KeyStore, StartsWithAMissingFileButNotABadOne) {
  fixture f;
  auto empty = create_file_key_store(f.file, f.clock, f.options());
  ASSERT_TRUE(empty);
  EXPECT_TRUE((*empty)->keys().empty());
  std::ofstream(f.file) << "[]";
  ::chmod(f.file.c_str(), 0600);
  auto bad = create_file_key_store(f.file, f.clock, f.options());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("API_KEYS_FILE"), std::string::npos);
}

TEST(KeyStore, ExplicitReloadNeedsNoInterval) {
  fixture f;
  auto store = std::move(create_file_key_store(f.file, f.clock, f.options()).value());
  std::string key = *generate_api_key();
  ASSERT_TRUE(write_key_file(f.file, key_set{{record("key_a", {"alice"}, key)}}));
  ASSERT_TRUE(store->reload());
  EXPECT_TRUE(store->authenticate(key));
}

// The lookup goes through the constant-time comparison and compares against
// every key whichever one matches.
TEST(KeyStore, ComparesEveryDigestThroughTheConstantTimePath) {
  fixture f;
  std::vector<std::string> keys;
  key_set set;
  for (int i = 0; i < 5; ++i) {
    keys.push_back(*generate_api_key());
    set.keys.push_back(record("key_" + std::to_string(i), {"u"}, keys.back()));
  }
  ASSERT_TRUE(write_key_file(f.file, set));
  int calls = 0;
  auto options = f.options();
  options.equal = [&](const key_digest& a, const key_digest& b) {
    ++calls;
    return digests_equal(a, b);
  };
  auto store = std::move(create_file_key_store(f.file, f.clock, options).value());
  for (const std::string& key : {keys.front(), keys.back(), *generate_api_key()}) {
    calls = 0;
    (void)store->authenticate(key);
    EXPECT_EQ(calls, 5);
  }
  // The default comparison is digests_equal (CRYPTO_memcmp).
  EXPECT_EQ(find_key(set, digest_of(keys[2])), &set.keys[2]);
  EXPECT_EQ(find_key(set, digest_of("other")), nullptr);
}

TEST(KeyStore, MemoryStoreForTests) {
  std::string key = *generate_api_key();
  auto store = create_memory_key_store(key_set{{record("key_m", {"alice"}, key)}});
  EXPECT_EQ(store->authenticate(key)->key_id, "key_m");
  EXPECT_FALSE(store->authenticate(*generate_api_key()));
}

}  // namespace
}  // namespace harness::auth
