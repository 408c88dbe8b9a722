#include "harness/policy/policy_source.hpp"
#include "harness/core/json_parse.hpp"

#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

#include "harness/core/file_signature.hpp"
#include "harness/core/logging.hpp"

namespace harness::policy {
namespace {

using json = nlohmann::json;

constexpr std::size_t max_file_bytes = 1 << 20;

result<tool_policy> read_policy(const std::filesystem::path& path, const policy_file_options& options) {
  auto where = [&](const std::string& what) {
    return make_error(errc::invalid_policy, fmt::format("TOOL_POLICY_FILE {} {}", path.string(), what),
                      "see docs/POLICY.md for the format");
  };
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return where("cannot be read: " + ec.message());
  if (size > max_file_bytes) return where(fmt::format("is larger than {} bytes", max_file_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return where("cannot be opened");
  std::stringstream text;
  text << in.rdbuf();
  std::string why;
  auto document = core::parse_json(text.str(), &why);
  if (document.is_discarded()) return where("is not valid JSON: " + why);
  auto parsed = tool_policy::parse(document, options.known_kinds, options.fallback);
  if (!parsed) {
    auto e = parsed.error();
    e.message = fmt::format("TOOL_POLICY_FILE {}: {}", path.string(), e.message);
    return e;
  }
  return parsed;
}

class policy_health;

class file_policy_source final : public policy_source, public std::enable_shared_from_this<file_policy_source> {
 public:
  file_policy_source(std::filesystem::path path, core::clock& clock, policy_file_options options, tool_policy first)
      : path_(std::move(path)), clock_(clock), options_(std::move(options)) {
    policy_ = std::make_shared<const tool_policy>(std::move(first));
    loaded_ = core::signature_of(path_);
    last_check_ = clock_.steady_now();
  }

  std::shared_ptr<const tool_policy> current() override {
    std::lock_guard lock(mutex_);
    check_for_change();
    return policy_;
  }

  std::shared_ptr<const core::health_source> health() const override;

  core::component_health check() const {
    std::lock_guard lock(mutex_);
    core::component_health out;
    out.required = false;
    out.detail = {{"file", path_.string()}, {"rules", policy_->size()}};
    if (!last_error_.empty()) {
      // The server runs on its last good policy: degraded, not down.
      out.up = false;
      out.detail["lastError"] = last_error_;
      out.detail["note"] = "the policy loaded before stays in force until the file is fixed";
    }
    return out;
  }

 private:
  void check_for_change() {
    auto now = clock_.steady_now();
    if (now - last_check_ < options_.check_interval) return;
    last_check_ = now;
    auto signature = core::signature_of(path_);
    if (signature == loaded_ || (rejected_ && signature == *rejected_)) return;
    auto next = read_policy(path_, options_);
    if (!next) {
      rejected_ = signature;
      last_error_ = next.error().describe();
      core::log_warn("{}; the policy loaded before stays in force", last_error_);
      return;
    }
    policy_ = std::make_shared<const tool_policy>(std::move(*next));
    loaded_ = signature;
    rejected_.reset();
    last_error_.clear();
    core::log_info("tool policy reloaded from {}: {} rules", path_.string(), policy_->size());
  }

  std::filesystem::path path_;
  core::clock& clock_;
  policy_file_options options_;
  mutable std::mutex mutex_;
  std::shared_ptr<const tool_policy> policy_;
  core::file_signature loaded_;
  std::optional<core::file_signature> rejected_;
  std::string last_error_;
  core::steady_time last_check_;
};

class policy_health final : public core::health_source {
 public:
  explicit policy_health(std::shared_ptr<const file_policy_source> source) : source_(std::move(source)) {}
  std::string name() const override { return "policy"; }
  core::component_health check() const override { return source_->check(); }

 private:
  std::shared_ptr<const file_policy_source> source_;
};

std::shared_ptr<const core::health_source> file_policy_source::health() const {
  return std::make_shared<policy_health>(shared_from_this());
}

class fixed_policy_source final : public policy_source {
 public:
  explicit fixed_policy_source(tool_policy policy) : policy_(std::make_shared<const tool_policy>(std::move(policy))) {}
  std::shared_ptr<const tool_policy> current() override { return policy_; }
  std::shared_ptr<const core::health_source> health() const override { return nullptr; }

 private:
  std::shared_ptr<const tool_policy> policy_;
};

}  // namespace

result<std::shared_ptr<policy_source>> open_policy_file(const std::filesystem::path& path, core::clock& clock,
                                                        policy_file_options options) {
  auto first = read_policy(path, options);
  if (!first) return first.error();
  return std::shared_ptr<policy_source>(
      std::make_shared<file_policy_source>(path, clock, std::move(options), std::move(*first)));
}

std::shared_ptr<policy_source> fixed_policy(tool_policy policy) {
  return std::make_shared<fixed_policy_source>(std::move(policy));
}

}  // namespace harness::policy
