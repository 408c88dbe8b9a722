// Vaults at rest: AES-256-GCM sealing round trips, never shows the values,
// refuses changed bytes and unknown keys, opens with an old key after a
// rotation, passes plain (older) vaults; the key from VAULT_KEY or a key file
// made with mode 600 at first start.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/core/base64.hpp"
#include "harness/pii/errors.hpp"
#include "harness/pii/pii_vault.hpp"
#include "harness/pii/vault_seal.hpp"

namespace harness::pii {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

const std::string key_a(32, 'a'), key_b(32, 'b');

json a_vault() {
  pii_vault v;
  v.token_for("EMAIL", "bob@example.com");
  v.token_for("PHONE", "415-555-2671");
  return v.to_json();
}

TEST(VaultSeal, ARoundTripGivesTheVaultBackAndTheSealShowsNoValue) {
  auto sealer = vault_sealer::create(key_a).value();
  auto sealed = sealer.seal(a_vault());
  EXPECT_EQ(sealed["sealed"], "aes-256-gcm");
  EXPECT_EQ(sealed["key"], sealer.key_id());
  EXPECT_EQ(sealed.dump().find("bob@example.com"), std::string::npos);
  EXPECT_EQ(sealed.dump().find("415-555"), std::string::npos);
  auto opened = sealer.open(sealed);
  ASSERT_TRUE(opened) << opened.error().describe();
  EXPECT_EQ(*opened, a_vault());
  // A fresh nonce each time: the same vault never seals to the same bytes.
  EXPECT_NE(sealer.seal(a_vault())["data"], sealed["data"]);
}

TEST(VaultSeal, ChangedBytesAndUnknownKeysDoNotOpen) {
  auto sealer = vault_sealer::create(key_a).value();
  auto sealed = sealer.seal(a_vault());
  auto bytes = core::base64_decode(sealed["data"].get<std::string>()).value();
  bytes[bytes.size() / 2] ^= 1;
  auto changed = sealed;
  changed["data"] = core::base64_encode(bytes);
  auto refused = sealer.open(changed);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, errc::invalid_vault);
  // Another key id (the associated data) does not open either, even with the right key bytes.
  auto relabelled = sealed;
  relabelled["key"] = "0000000000000000";
  EXPECT_FALSE(sealer.open(relabelled));
  auto other = vault_sealer::create(key_b).value();
  auto unknown = other.open(sealed);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find(sealer.key_id()), std::string::npos);
  auto cut = sealed;
  cut["data"] = "AAAA";
  EXPECT_FALSE(sealer.open(cut));
}

TEST(VaultSeal, AfterARotationTheOldKeyStillOpensAndNewSealsUseTheNewOne) {
  auto before = vault_sealer::create(key_a).value();
  auto old_sealed = before.seal(a_vault());
  auto after = vault_sealer::create(key_b, {key_a}).value();
  auto opened = after.open(old_sealed);
  ASSERT_TRUE(opened) << opened.error().describe();
  EXPECT_EQ(*opened, a_vault());
  EXPECT_EQ(after.seal(a_vault())["key"], after.key_id());
  EXPECT_NE(after.key_id(), before.key_id());
}

TEST(VaultSeal, APlainVaultFromBeforeSealingStillOpens) {
  auto sealer = vault_sealer::create(key_a).value();
  auto opened = sealer.open(a_vault());
  ASSERT_TRUE(opened);
  EXPECT_EQ(*opened, a_vault());
  EXPECT_EQ(vault_sealer::create("short").error().code, errc::invalid_vault_key);
}

core::settings settings_with(std::map<std::string, std::string> env) {
  auto specs = vault_setting_specs();
  specs.push_back({"STORE_PATH", "data/harness.db", ""});
  return core::settings::resolve(specs, {.env = std::move(env), .dotenv_text = std::nullopt, .args = {}}).value();
}

TEST(VaultKey, AKeyFileIsMadeAtFirstStartWithMode600AndReadAfter) {
  auto dir = fs::temp_directory_path() / ("vault-key-" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto settings = settings_with({{"STORE_PATH", (dir / "harness.db").string()}});
  auto first = load_vault_sealer(settings);
  ASSERT_TRUE(first) << first.error().describe();
  struct stat st {};
  ASSERT_EQ(::stat((dir / "vault.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto again = load_vault_sealer(settings);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->key_id(), first->key_id());
  EXPECT_TRUE(again->open(first->seal(a_vault())));
  // A key file others may read is refused, with what to do.
  ::chmod((dir / "vault.key").c_str(), 0644);
  auto open_to_others = load_vault_sealer(settings);
  ASSERT_FALSE(open_to_others);
  EXPECT_NE(open_to_others.error().message.find("chmod 600"), std::string::npos);
  fs::remove_all(dir);
}

TEST(VaultKey, VaultKeyAndOldKeysAreHexAndCheckedAtStart) {
  const std::string hex_a(64, '6');  // 0x66 = 'f'
  auto from_setting = load_vault_sealer(settings_with({{"VAULT_KEY", hex_a}}));
  ASSERT_TRUE(from_setting) << from_setting.error().describe();
  EXPECT_EQ(from_setting->key_id(), vault_sealer::create(std::string(32, 'f')).value().key_id());
  EXPECT_EQ(load_vault_sealer(settings_with({{"VAULT_KEY", "not hex"}})).error().code, errc::invalid_vault_key);
  EXPECT_EQ(load_vault_sealer(settings_with({{"VAULT_KEY", hex_a}, {"VAULT_OLD_KEYS", "abcd"}})).error().code,
            errc::invalid_vault_key);
  auto rotated = load_vault_sealer(settings_with({{"VAULT_KEY", hex_a}, {"VAULT_OLD_KEYS", std::string(64, '7')}}));
  ASSERT_TRUE(rotated);
  EXPECT_TRUE(rotated->open(vault_sealer::create(std::string(32, 'w')).value().seal(a_vault())));  // 0x77 = 'w'
}

}  // namespace
}  // namespace harness::pii
