// PII vaults at rest: a conversation's vault (every raw value its tools
// returned) is sealed with AES-256-GCM before the store writes it, and opened
// when a follow-up reads it. OpenSSL's EVP interface; a fresh random 96-bit
// nonce per seal; the key's id is bound to the ciphertext as associated data.
//
// Sealed, a vault is the JSON {"sealed": "aes-256-gcm", "key": "<key id>",
// "data": "<base64 of nonce | ciphertext | tag>"}. A vault written before
// sealing was on (a plain vault object) still opens, and is sealed the next
// time it is written.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"

namespace harness::pii {

class vault_sealer {
 public:
  // `key`: 32 bytes. `old_keys`: keys that only open (after a rotation).
  // Errors: invalid_vault_key for a key of another length.
  static result<vault_sealer> create(std::string key, std::vector<std::string> old_keys = {});

  nlohmann::json seal(const nlohmann::json& vault) const;
  // Error invalid_vault for a sealed vault whose key this sealer does not
  // have, or that does not open (changed or cut bytes).
  result<nlohmann::json> open(const nlohmann::json& stored) const;

  // The current key's id: the first 8 bytes of its SHA-256, in hex.
  const std::string& key_id() const { return key_id_; }

 private:
  std::string key_id_;
  std::map<std::string, std::string> keys_;  // id -> key, the current one included
};

std::vector<core::setting_spec> vault_setting_specs();

// The sealer of VAULT_KEY (64 hex digits), else of the key file VAULT_KEY_FILE
// (by default vault.key beside STORE_PATH's file), which is made with a random
// key and mode 600 when it does not exist yet; VAULT_OLD_KEYS (hex, comma
// separated) still open. A key file readable by group or others, or of the
// wrong size, is an error.
result<vault_sealer> load_vault_sealer(const core::settings& settings);

}  // namespace harness::pii
