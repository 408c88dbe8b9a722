// The set of valid API keys as the server sees it: authenticate a presented
// key, and follow changes to API_KEYS_FILE without a restart. The file-backed
// store checks the file's signature (inode, size, mtime, mode) at most once
// per second, on use; no background thread. A bad new file leaves the last
// good set in force and is logged once. Thread-safe.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/auth/caller.hpp"
#include "harness/auth/key_file.hpp"
#include "harness/core/clock.hpp"
#include "harness/core/error.hpp"

namespace harness::auth {

class key_store {
 public:
  virtual ~key_store() = default;

  // The caller a presented key (the Bearer token, not the header) stands
  // for; nullopt for a malformed, unknown or revoked key. Never logs or keeps
  // the key. May reread the file first (see above).
  virtual std::optional<caller> authenticate(std::string_view key) = 0;

  // Rereads the file now, whether or not it changed. On error (named
  // "invalid_key_file") the previous set stays in force.
  virtual status reload() = 0;

  // The keys in force, without their digests (for diagnostics).
  virtual std::vector<caller> keys() const = 0;

  // How many keys are in force; like authenticate, may reread the file first.
  virtual std::size_t key_count() = 0;
};

// Compares two digests; digests_equal (constant time) unless a test counts calls.
using digest_compare = std::function<bool(const key_digest&, const key_digest&)>;

// The record whose digest equals `digest`. Compares against every record,
// with no early exit, so the time does not say which record matched.
const key_record* find_key(const key_set& set, const key_digest& digest, const digest_compare& equal = digests_equal);

struct file_key_store_options {
  std::chrono::milliseconds check_interval{1000};
  // Where the "kept the last good keys" line goes; core::log_warn by default.
  std::function<void(const std::string&)> warn;
  digest_compare equal = digests_equal;
};

// Reads the file once. Error "invalid_key_file" when the file is bad at
// start-up (a missing file is fine: no key is valid until one is added).
// `clock` times the once-a-check_interval look at the file; it must outlive the store.
result<std::unique_ptr<key_store>> create_file_key_store(const std::filesystem::path& path, core::clock& clock,
                                                         file_key_store_options options = {});

// A fixed set, for tests of code that authenticates (no file, no reload).
std::unique_ptr<key_store> create_memory_key_store(key_set set);

}  // namespace harness::auth
