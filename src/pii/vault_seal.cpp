#include "harness/pii/vault_seal.hpp"
#include "harness/core/json_parse.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <fmt/format.h>

#include "harness/core/base64.hpp"
#include "harness/pii/errors.hpp"

namespace harness::pii {
namespace {

using json = nlohmann::json;

constexpr std::size_t key_bytes = 32, nonce_bytes = 12, tag_bytes = 16;
constexpr std::string_view algorithm = "aes-256-gcm";

struct cipher_ctx {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  ~cipher_ctx() { EVP_CIPHER_CTX_free(ctx); }
};

std::string hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

std::optional<std::string> from_hex(std::string_view text) {
  if (text.size() % 2) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    unsigned value = 0;
    for (char c : text.substr(i, 2)) {
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f')
        value |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        value |= unsigned(c - 'A' + 10);
      else
        return std::nullopt;
    }
    out += static_cast<char>(value);
  }
  return out;
}

std::string key_id_of(const std::string& key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(key.data(), key.size(), digest, &length, EVP_sha256(), nullptr);
  return hex(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

error bad_vault(std::string message) {
  return make_error(errc::invalid_vault, std::move(message),
                    "the conversation's vault cannot be used; start a new conversation, or set VAULT_OLD_KEYS to "
                    "the key it was sealed with");
}

error bad_key(std::string message) {
  return make_error(errc::invalid_vault_key, std::move(message),
                    "VAULT_KEY is 64 hex digits (openssl rand -hex 32); see docs/SECURITY.md, PII at rest");
}

}  // namespace

result<vault_sealer> vault_sealer::create(std::string key, std::vector<std::string> old_keys) {
  vault_sealer out;
  if (key.size() != key_bytes) return bad_key(fmt::format("a vault key is {} bytes, not {}", key_bytes, key.size()));
  out.key_id_ = key_id_of(key);
  out.keys_[out.key_id_] = std::move(key);
  for (auto& old : old_keys) {
    if (old.size() != key_bytes) return bad_key("a key in VAULT_OLD_KEYS is not 32 bytes");
    auto id = key_id_of(old);
    out.keys_.emplace(std::move(id), std::move(old));
  }
  return out;
}

json vault_sealer::seal(const json& vault) const {
  const std::string plain = vault.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string& key = keys_.at(key_id_);
  std::string out(nonce_bytes + plain.size() + tag_bytes, '\0');
  auto* bytes = reinterpret_cast<unsigned char*>(out.data());
  if (RAND_bytes(bytes, nonce_bytes) != 1) throw std::runtime_error("no random bytes for a vault nonce");
  cipher_ctx c;
  int length = 0;
  const auto* k = reinterpret_cast<const unsigned char*>(key.data());
  // The key id as associated data: a sealed vault cannot be passed off as one of another key.
  bool ok = c.ctx && EVP_EncryptInit_ex(c.ctx, EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
            EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_GCM_SET_IVLEN, nonce_bytes, nullptr) == 1 &&
            EVP_EncryptInit_ex(c.ctx, nullptr, nullptr, k, bytes) == 1 &&
            EVP_EncryptUpdate(c.ctx, nullptr, &length, reinterpret_cast<const unsigned char*>(key_id_.data()),
                              static_cast<int>(key_id_.size())) == 1 &&
            EVP_EncryptUpdate(c.ctx, bytes + nonce_bytes, &length, reinterpret_cast<const unsigned char*>(plain.data()),
                              static_cast<int>(plain.size())) == 1 &&
            EVP_EncryptFinal_ex(c.ctx, bytes + nonce_bytes + length, &length) == 1 &&
            EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_GCM_GET_TAG, tag_bytes, bytes + nonce_bytes + plain.size()) == 1;
  // Never store a vault in the clear because encryption failed.
  if (!ok) throw std::runtime_error("AES-256-GCM failed while sealing a vault");
  return {{"sealed", algorithm}, {"key", key_id_}, {"data", core::base64_encode(out)}};
}

result<json> vault_sealer::open(const json& stored) const {
  if (!stored.is_object() || !stored.contains("sealed")) return stored;  // written before sealing was on
  if (stored.value("sealed", std::string()) != algorithm || !stored["key"].is_string() || !stored["data"].is_string()) {
    return bad_vault("a sealed vault of an unknown kind");
  }
  const std::string id = stored["key"].get<std::string>();
  auto key = keys_.find(id);
  if (key == keys_.end())
    return bad_vault(fmt::format("the vault was sealed with key {}, which this server does not have", id));
  auto data = core::base64_decode(stored["data"].get<std::string>());
  if (!data || data->size() < nonce_bytes + tag_bytes) return bad_vault("a sealed vault whose data is cut");
  const auto* bytes = reinterpret_cast<const unsigned char*>(data->data());
  const std::size_t body = data->size() - nonce_bytes - tag_bytes;
  std::string plain(body, '\0');
  cipher_ctx c;
  int length = 0;
  std::string tag = data->substr(nonce_bytes + body);
  bool ok = c.ctx && EVP_DecryptInit_ex(c.ctx, EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
            EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_GCM_SET_IVLEN, nonce_bytes, nullptr) == 1 &&
            EVP_DecryptInit_ex(c.ctx, nullptr, nullptr, reinterpret_cast<const unsigned char*>(key->second.data()),
                               bytes) == 1 &&
            EVP_DecryptUpdate(c.ctx, nullptr, &length, reinterpret_cast<const unsigned char*>(id.data()),
                              static_cast<int>(id.size())) == 1 &&
            EVP_DecryptUpdate(c.ctx, reinterpret_cast<unsigned char*>(plain.data()), &length, bytes + nonce_bytes,
                              static_cast<int>(body)) == 1 &&
            EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_GCM_SET_TAG, tag_bytes, tag.data()) == 1 &&
            EVP_DecryptFinal_ex(c.ctx, reinterpret_cast<unsigned char*>(plain.data()) + length, &length) == 1;
  if (!ok) return bad_vault("a sealed vault that does not open (its bytes were changed, or the key is wrong)");
  auto vault = core::parse_json(plain);
  if (vault.is_discarded()) return bad_vault("a sealed vault that is not JSON inside");
  return vault;
}

std::vector<core::setting_spec> vault_setting_specs() {
  return {
      {"VAULT_KEY", "",
       "64 hex digits: the AES-256-GCM key that seals PII vaults at rest; empty: the key file VAULT_KEY_FILE"},
      {"VAULT_KEY_FILE", "",
       "the vault key's file, made (mode 600) at first start; empty: vault.key beside STORE_PATH"},
      {"VAULT_OLD_KEYS", "",
       "earlier vault keys (hex, comma separated) that still open vaults sealed before a rotation"},
  };
}

namespace {

result<std::string> hex_key(const std::string& text, const char* setting) {
  auto key = from_hex(text);
  if (!key || key->size() != key_bytes) return bad_key(fmt::format("{} is not 64 hex digits", setting));
  return *key;
}

// The key file: read it, or make it (O_EXCL, mode 600) with a random key.
result<std::string> key_from_file(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::string key(key_bytes, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), key_bytes) != 1) return bad_key("no random bytes");
    int out = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (out >= 0) {
      std::string text = hex(key) + "\n";
      bool written = ::write(out, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(out) == 0;
      ::close(out);
      if (!written) return bad_key(fmt::format("the vault key file {} could not be written", path.string()));
      return key;
    }
    if (errno != EEXIST) {
      return bad_key(fmt::format("the vault key file {} cannot be made: {}", path.string(), std::strerror(errno)));
    }
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);  // another process made it first
  }
  if (fd < 0)
    return bad_key(fmt::format("the vault key file {} cannot be read: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  std::string text(200, '\0');
  ssize_t n = ::fstat(fd, &st) == 0 ? ::read(fd, text.data(), text.size()) : -1;
  ::close(fd);
  if (!S_ISREG(st.st_mode)) return bad_key(fmt::format("the vault key file {} is not a regular file", path.string()));
  if (st.st_mode & (S_IRWXG | S_IRWXO)) {
    return bad_key(fmt::format("the vault key file {} is open to group or others (mode {:o}); run chmod 600 on it",
                               path.string(), st.st_mode & 0777));
  }
  if (n < 0) return bad_key(fmt::format("the vault key file {} cannot be read", path.string()));
  text.resize(static_cast<std::size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return hex_key(text, "the vault key file");
}

}  // namespace

result<vault_sealer> load_vault_sealer(const core::settings& settings) {
  std::string key;
  if (const auto& text = settings.get("VAULT_KEY"); !text.empty()) {
    auto parsed = hex_key(text, "VAULT_KEY");
    if (!parsed) return parsed.error();
    key = std::move(*parsed);
  } else {
    std::filesystem::path file = settings.get("VAULT_KEY_FILE");
    if (file.empty()) file = std::filesystem::path(settings.get("STORE_PATH")).parent_path() / "vault.key";
    auto read = key_from_file(file);
    if (!read) return read.error();
    key = std::move(*read);
  }
  std::vector<std::string> old_keys;
  const std::string& old = settings.get("VAULT_OLD_KEYS");
  for (std::size_t start = 0; start < old.size();) {
    auto comma = old.find(',', start);
    std::string item = old.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? old.size() : comma + 1;
    if (item.empty()) continue;
    auto parsed = hex_key(item, "VAULT_OLD_KEYS");
    if (!parsed) return parsed.error();
    old_keys.push_back(std::move(*parsed));
  }
  return vault_sealer::create(std::move(key), std::move(old_keys));
}

}  // namespace harness::pii
