// API keys themselves: how one is made, what it looks like and how it is
// compared. A key is "mh_" + 43 base64url characters (256 random bits from
// OpenSSL's RAND_bytes); the prefix makes a leaked key easy to grep for. Only
// the SHA-256 of a key is ever stored: a 256-bit random key needs no slow hash.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "harness/core/error.hpp"

namespace harness::auth {

inline constexpr std::string_view api_key_prefix = "mh_";
inline constexpr std::size_t api_key_length = 3 + 43;

using key_digest = std::array<unsigned char, 32>;

// A new key. Error "random_failed" when the OpenSSL generator cannot seed
// itself (then no key must be made at all).
result<std::string> generate_api_key();

// A new key id: "key_" + 12 lowercase hex characters (core::make_id). Ids are
// public (logs, `keys list`, revoke); they only need to be unique in one file.
result<std::string> generate_key_id();

// True when `text` has the shape of a key (prefix, length, base64url
// alphabet); says nothing about whether it is a valid one.
bool looks_like_api_key(std::string_view text);

// SHA-256 of the key's bytes.
key_digest digest_of(std::string_view key);

// Lowercase hex of a digest, and back (nullopt unless exactly 64 hex digits).
std::string to_hex(const key_digest& digest);
std::optional<key_digest> digest_from_hex(std::string_view hex);

// Constant-time comparison (CRYPTO_memcmp): the time taken does not depend on
// where the digests differ.
bool digests_equal(const key_digest& a, const key_digest& b);

// The token of an `Authorization: Bearer <token>` header value (scheme
// case-insensitive, surrounding blanks ignored); nullopt for another scheme or
// an empty token.
std::optional<std::string_view> bearer_token(std::string_view authorization);

}  // namespace harness::auth
