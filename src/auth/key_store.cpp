#include "harness/auth/key_store.hpp"

#include <mutex>

#include "harness/core/logging.hpp"

namespace harness::auth {
namespace {

caller caller_of(const key_record& r) {
  return caller{r.id, r.label, r.users, r.admin};
}

std::optional<caller> authenticate_in(const key_set& set, std::string_view key, const digest_compare& equal) {
  // The shape is public; checking it first spares a hash and keeps junk out.
  if (!looks_like_api_key(key)) return std::nullopt;
  const key_record* match = find_key(set, digest_of(key), equal);
  if (!match) return std::nullopt;
  return caller_of(*match);
}

std::vector<caller> callers_of(const key_set& set) {
  std::vector<caller> out;
  for (const auto& r : set.keys) out.push_back(caller_of(r));
  return out;
}

class file_key_store final : public key_store {
 public:
  file_key_store(std::filesystem::path path, core::clock& clock, file_key_store_options options, loaded_key_file first)
      : path_(std::move(path)), clock_(clock), options_(std::move(options)) {
    if (!options_.warn) options_.warn = [](const std::string& line) { core::log_warn("{}", line); };
    accept(std::move(first));
    last_check_ = clock_.steady_now();
  }

  std::optional<caller> authenticate(std::string_view key) override {
    std::lock_guard lock(mutex_);
    check_for_change();
    return authenticate_in(set_, key, options_.equal);
  }

  status reload() override {
    std::lock_guard lock(mutex_);
    last_check_ = clock_.steady_now();
    return load();
  }

  std::vector<caller> keys() const override {
    std::lock_guard lock(mutex_);
    return callers_of(set_);
  }

  std::size_t key_count() override {
    std::lock_guard lock(mutex_);
    check_for_change();
    return set_.keys.size();
  }

 private:
  // At most once per check_interval: stat the file, reread it if it changed.
  void check_for_change() {
    auto now = clock_.steady_now();
    if (now - last_check_ < options_.check_interval) return;
    last_check_ = now;
    auto current = signature_of(path_);
    if (current == loaded_signature_ || current == rejected_signature_) return;
    (void)load();
  }

  status load() {
    auto loaded = read_key_file(path_);
    if (!loaded) {
      // Log each bad version of the file once, not on every check.
      auto bad = signature_of(path_);
      if (rejected_signature_ != bad) {
        options_.warn(loaded.error().describe() + "; keeping the " + std::to_string(set_.keys.size()) +
                      " keys loaded before");
      }
      rejected_signature_ = bad;
      return loaded.error();
    }
    accept(std::move(*loaded));
    return {};
  }

  void accept(loaded_key_file loaded) {
    if (!loaded.warning.empty() && warned_signature_ != loaded.signature) {
      options_.warn(loaded.warning);
      warned_signature_ = loaded.signature;
    }
    set_ = std::move(loaded.set);
    loaded_signature_ = loaded.signature;
    rejected_signature_.reset();
  }

  std::filesystem::path path_;
  core::clock& clock_;
  file_key_store_options options_;
  mutable std::mutex mutex_;
  key_set set_;
  file_signature loaded_signature_;
  std::optional<file_signature> rejected_signature_, warned_signature_;
  core::steady_time last_check_;
};

class memory_key_store final : public key_store {
 public:
  explicit memory_key_store(key_set set) : set_(std::move(set)) {}
  std::optional<caller> authenticate(std::string_view key) override {
    return authenticate_in(set_, key, digests_equal);
  }
  status reload() override { return {}; }
  std::vector<caller> keys() const override { return callers_of(set_); }
  std::size_t key_count() override { return set_.keys.size(); }

 private:
  key_set set_;
};

}  // namespace

const key_record* find_key(const key_set& set, const key_digest& digest, const digest_compare& equal) {
  const key_record* match = nullptr;
  for (const auto& r : set.keys) {
    // No early exit: every record is compared whatever matched.
    if (equal(r.sha256, digest) && !match) match = &r;
  }
  return match;
}

result<std::unique_ptr<key_store>> create_file_key_store(const std::filesystem::path& path, core::clock& clock,
                                                         file_key_store_options options) {
  auto first = read_key_file(path);
  if (!first) return first.error();
  return std::unique_ptr<key_store>(
      std::make_unique<file_key_store>(path, clock, std::move(options), std::move(*first)));
}

std::unique_ptr<key_store> create_memory_key_store(key_set set) {
  return std::make_unique<memory_key_store>(std::move(set));
}

}  // namespace harness::auth
