// The API key file (API_KEYS_FILE, default data/api-keys.json): what it holds,
// reading it strictly and writing it atomically. It never holds a key, only
// each key's SHA-256. Format (docs/architecture/auth.md):
//   {"version": 1, "keys": [{"id": "key_3f9a1c2b7d4e", "label": "ci",
//     "users": ["alice"], "role": "user", "created": "2026-12-01T12:43:00Z",
//     "sha256": "<64 hex digits>"}]}
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/auth/api_key.hpp"
#include "harness/core/error.hpp"
#include "harness/core/file_signature.hpp"

namespace harness::auth {

struct key_record {
  std::string id;
  std::string label;
  std::vector<std::string> users;
  bool admin = false;
  std::string created;  // UTC, "YYYY-MM-DDTHH:MM:SSZ"
  key_digest sha256{};
};

struct key_set {
  std::vector<key_record> keys;
};

using core::file_signature;
using core::signature_of;

// The file as read: its keys, its signature and a warning (group- or
// world-readable file) the caller may log.
struct loaded_key_file {
  key_set set;
  file_signature signature;
  std::string warning;
};

// The rules for a user id on a key (as for userId in the API): 1-64 of
// [A-Za-z0-9._-], not "." or "..".
bool is_valid_user_id(std::string_view user_id);

// Parses the text strictly: unknown fields, wrong types, a bad id, role,
// user, time or digest, duplicate ids or digests, or a user key without users
// are errors. Error "invalid_key_file"; the message names API_KEYS_FILE, the
// path and the field ("keys[2].sha256 is not 64 hex digits").
result<key_set> parse_key_file(std::string_view text, const std::filesystem::path& path);

// The file's text: stable order, one key per line group, trailing newline.
std::string serialize_key_file(const key_set& set);

// Reads and parses the file. A missing file is an empty set (no key is
// valid). Refused ("invalid_key_file"): a file group- or world-writable
// (anyone who can write it can add an admin key), larger than 4 MiB, not a
// regular file, or unreadable. Group- or world-readable is only a warning.
result<loaded_key_file> read_key_file(const std::filesystem::path& path);

// Writes atomically: parent folders created (0700), a temporary file with
// mode 0600 in the same folder, fsync, rename over `path`. Error
// "key_file_write_failed" naming the path and the OS error.
status write_key_file(const std::filesystem::path& path, const key_set& set);

// Read-modify-write under an exclusive lock (flock on "<path>.lock"), so two
// `keys add` at once do not lose a key. `change` edits the set or returns an
// error, which leaves the file untouched.
status update_key_file(const std::filesystem::path& path, const std::function<status(key_set&)>& change);

// "YYYY-MM-DDTHH:MM:SSZ" of a time point (UTC, whole seconds).
std::string format_utc(std::chrono::system_clock::time_point time);

}  // namespace harness::auth
