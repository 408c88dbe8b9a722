#include "harness/auth/api_key.hpp"

#include "harness/auth/errors.hpp"
#include "harness/core/ids.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cctype>

namespace harness::auth {
namespace {

constexpr char base64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr char hex_digits[] = "0123456789abcdef";

bool is_base64url(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

result<std::string> generate_api_key() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    return make_error(errc::random_failed, "the OpenSSL random generator failed; no key was made",
                      "check that /dev/urandom is readable");
  }
  // 32 bytes = 256 bits = 42 full 6-bit groups and 4 bits left: 43 characters, no padding.
  std::string key(api_key_prefix);
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char b : bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      key.push_back(base64url[(acc >> bits) & 0x3F]);
    }
  }
  if (bits > 0) key.push_back(base64url[(acc << (6 - bits)) & 0x3F]);
  OPENSSL_cleanse(bytes, sizeof bytes);
  return key;
}

result<std::string> generate_key_id() {
  return core::make_id("key_", 6);
}

bool looks_like_api_key(std::string_view text) {
  if (text.size() != api_key_length || text.substr(0, api_key_prefix.size()) != api_key_prefix) return false;
  for (char c : text.substr(api_key_prefix.size())) {
    if (!is_base64url(c)) return false;
  }
  return true;
}

key_digest digest_of(std::string_view key) {
  key_digest digest{};
  unsigned int length = 0;
  // EVP_Digest with SHA-256 cannot fail for in-memory input short of memory exhaustion.
  if (EVP_Digest(key.data(), key.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1 ||
      length != digest.size()) {
    throw std::runtime_error("SHA-256 failed");
  }
  return digest;
}

std::string to_hex(const key_digest& digest) {
  std::string out;
  out.reserve(digest.size() * 2);
  for (unsigned char b : digest) {
    out.push_back(hex_digits[b >> 4]);
    out.push_back(hex_digits[b & 0xF]);
  }
  return out;
}

std::optional<key_digest> digest_from_hex(std::string_view hex) {
  key_digest digest{};
  if (hex.size() != digest.size() * 2) return std::nullopt;
  for (std::size_t i = 0; i < digest.size(); ++i) {
    int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    digest[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return digest;
}

bool digests_equal(const key_digest& a, const key_digest& b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<std::string_view> bearer_token(std::string_view authorization) {
  auto is_blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!authorization.empty() && is_blank(authorization.front())) authorization.remove_prefix(1);
  while (!authorization.empty() && is_blank(authorization.back())) authorization.remove_suffix(1);
  constexpr std::string_view scheme = "bearer";
  if (authorization.size() <= scheme.size() || !is_blank(authorization[scheme.size()])) return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i]) return std::nullopt;
  }
  auto token = authorization.substr(scheme.size());
  while (!token.empty() && is_blank(token.front())) token.remove_prefix(1);
  if (token.empty()) return std::nullopt;
  return token;
}

}  // namespace harness::auth
