#include "harness/execution/data_path.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "harness/core/logging.hpp"
#include "harness/policy/errors.hpp"

namespace harness::execution {
namespace {

class registry_gateway final : public bridge::tool_gateway {
 public:
  // `user`: who the calls act for (user-scoped servers); empty: nobody in particular.
  registry_gateway(std::shared_ptr<mcp::tool_registry> registry, std::string user)
      : registry_(std::move(registry)), user_(std::move(user)) {}

  std::shared_ptr<bridge::tool_gateway> acting_for(const std::string& user_id) override {
    return std::make_shared<registry_gateway>(registry_, user_id);
  }

  // Each helper waits for the servers still starting (bounded by their
  // start timeout): code run right after start-up sees every tool. The
  // user's instances of user-scoped servers whose tools nobody has learned
  // yet start now, so the first listing shows them too.
  boost::asio::awaitable<void> ready() override {
    co_await started();
    co_await registry_->prepare(user_);
  }
  boost::asio::awaitable<void> prepare_call(std::string tool) override {
    co_await started();
    co_await registry_->prepare_call(user_, std::move(tool));
  }
  boost::asio::awaitable<result<nlohmann::json>> list_tools(std::string query) override {
    co_await ready();
    co_return registry_->list_for(user_, query);
  }
  boost::asio::awaitable<result<nlohmann::json>> tool_details(std::string name) override {
    co_await ready();
    co_return registry_->details_for(user_, name);
  }
  boost::asio::awaitable<result<nlohmann::json>> call_tool(std::string name, nlohmann::json args,
                                                           std::chrono::steady_clock::time_point not_after,
                                                           bridge::elicit_fn elicit,
                                                           telemetry::span_parent trace) override {
    co_await started();  // a call starts the user's instance it needs itself
    auto deadline = mcp::call_deadline::until(not_after);
    deadline.elicit = std::move(elicit);
    deadline.user = user_;
    deadline.trace = std::move(trace);
    co_return co_await registry_->call(std::move(name), std::move(args), std::move(deadline));
  }
  boost::asio::awaitable<result<nlohmann::json>> read_resource(
      std::string server, std::string uri, std::chrono::steady_clock::time_point not_after) override {
    co_await started();
    auto deadline = mcp::call_deadline::until(not_after);
    deadline.user = user_;
    co_return co_await registry_->read_resource(std::move(server), std::move(uri), std::move(deadline));
  }
  boost::asio::awaitable<result<nlohmann::json>> connect(std::string server) override {
    co_await started();
    co_return co_await registry_->connect(user_, std::move(server));
  }

 private:
  boost::asio::awaitable<void> started() {
    if (!registry_->started()) co_await registry_->wait_started();
  }

  std::shared_ptr<mcp::tool_registry> registry_;
  std::string user_;
};

}  // namespace

std::shared_ptr<bridge::tool_gateway> registry_tools(std::shared_ptr<mcp::tool_registry> registry) {
  return std::make_shared<registry_gateway>(std::move(registry), std::string());
}

pii_filter_factory::pii_filter_factory(std::shared_ptr<const pii::pii_censor> censor,
                                       std::shared_ptr<core::metrics_registry> metrics, guard_factory guards)
    : censor_(std::move(censor)), metrics_(std::move(metrics)), guards_(std::move(guards)) {}

std::shared_ptr<pii_filter> pii_filter_factory::make(std::shared_ptr<pii::pii_vault> vault,
                                                     const policy::caller_identity& who) const {
  return std::make_shared<pii_filter>(censor_, std::move(vault), metrics_ ? &pii_detection_counter(*metrics_) : nullptr,
                                      guards_ ? guards_(who) : nullptr);
}

pii_filter::pii_filter(std::shared_ptr<const pii::pii_censor> censor, std::shared_ptr<pii::pii_vault> vault,
                       core::family<core::counter>* detections, std::unique_ptr<policy::call_guard> guard)
    : censor_(std::move(censor)), vault_(std::move(vault)), detections_(detections), guard_(std::move(guard)) {
  if (!detections_) return;
  for (auto& name : censor_->detector_names()) {
    std::string token = name;
    for (char& c : token) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    kinds_.push_back({std::move(name), std::move(token)});
  }
}

nlohmann::json pii_filter::into_sandbox(nlohmann::json value) {
  const std::size_t before = vault_->size();
  auto censored = censor_->tokenize_json(value, *vault_, pii::token_policy::escape_all);
  // Tokens are numbered per kind from 1, so new ones are found by probing the next numbers.
  for (auto& kind : kinds_) {
    if (vault_->size() == before) break;
    std::size_t fresh = 0;
    while (vault_->value_of(kind.token + "_" + std::to_string(kind.issued + 1))) ++kind.issued, ++fresh;
    if (fresh) detections_->with({kind.name}).inc(fresh);
  }
  if (censored) return std::move(*censored);
  // Nesting past the censor's depth limit: refuse to pass it on uncensored.
  core::log_warn("tool result not censored ({}); withheld from the sandbox", censored.error().message);
  return {{"error", "the tool result was too deeply nested to censor and was withheld"}};
}

namespace {

// Holds the block's deadline for as long as it lives (an approval being awaited).
struct held_deadline {
  explicit held_deadline(bridge::deadline_pause& p) : pause(p) { pause.hold(); }
  ~held_deadline() { pause.release(); }
  held_deadline(const held_deadline&) = delete;
  held_deadline& operator=(const held_deadline&) = delete;
  bridge::deadline_pause& pause;
};

error refusal(const std::string& tool, const policy::approval_answer& answer) {
  std::string because = answer.reason.empty() ? std::string() : ": " + answer.reason;
  switch (answer.outcome) {
    case policy::approval_outcome::timed_out:
      return make_error(policy::errc::approval_timeout,
                        fmt::format("nobody approved the call of {} in time{}", tool, because),
                        "go on without this call, or try again when someone can approve it");
    case policy::approval_outcome::cancelled:
      return make_error(policy::errc::approval_denied,
                        fmt::format("the call of {} was not made: the task is ending{}", tool, because));
    default:
      return make_error(policy::errc::approval_denied, fmt::format("the call of {} was denied{}", tool, because),
                        "go on without this call (the approver said no)");
  }
}

}  // namespace

boost::asio::awaitable<status> pii_filter::admit_call(bridge::call_admission call) {
  if (!guard_) co_return status{};
  auto admitted = guard_->admit(call.tool);
  if (!admitted) co_return admitted.error();
  if (!admitted->ask) co_return status{};
  if (!approver_) {
    co_return make_error(
        policy::errc::approval_required,
        fmt::format("a call of {} needs approval ({}), and nobody can be asked for it here", call.tool, *admitted->ask),
        "go on without this call, or ask the operator to change TOOL_POLICY_FILE");
  }
  policy::approval_request request{call.tool, call.arguments, std::string(call.code), *admitted->ask};
  policy::approval_answer answer;
  {
    held_deadline held(call.block);
    answer = co_await approver_->ask(std::move(request));
  }
  if (answer.outcome != policy::approval_outcome::approved) co_return refusal(call.tool, answer);
  co_return guard_->approved(call.tool, answer.for_task);
}

namespace {

// `value` with its tokens restored to the values of the kinds `grant` allows.
nlohmann::json restore_granted(nlohmann::json value, pii::pii_vault& vault, const policy::pii_grant& grant) {
  pii::kind_filter restore;  // null: every kind
  if (!grant.all) {
    // The grant names detector kinds ("email"); tokens carry them upper-case ("EMAIL").
    restore = [&grant](std::string_view kind) {
      // [TOKEN_n] stands for token-shaped text a tool wrote, not for PII: always the tool's own text again.
      if (kind == "TOKEN") return true;
      for (const auto& allowed : grant.kinds) {
        if (allowed.size() == kind.size() &&
            std::equal(allowed.begin(), allowed.end(), kind.begin(), [](char a, char b) {
              return std::toupper(static_cast<unsigned char>(a)) == static_cast<unsigned char>(b);
            }))
          return true;
      }
      return false;
    };
  }
  auto restored = pii::detokenize_json(value, vault, restore);
  if (restored) return std::move(*restored);
  core::log_warn("tool arguments not restored ({}); passed on as written", restored.error().message);
  return value;
}

}  // namespace

nlohmann::json pii_filter::out_of_sandbox(nlohmann::json value, std::string_view tool) {
  const policy::pii_grant grant = guard_ ? guard_->grant(std::string(tool)) : policy::pii_grant{};
  return restore_granted(std::move(value), *vault_, grant);
}

boost::asio::awaitable<std::optional<nlohmann::json>> pii_filter::elicit(
    nlohmann::json params, std::string tool, std::shared_ptr<bridge::deadline_pause> block) {
  // What is needed after the wait is taken now: the sandbox (and this filter) may be gone by then.
  auto approver = approver_;
  if (!approver) co_return std::nullopt;
  auto vault = vault_;
  const policy::pii_grant grant = guard_ ? guard_->grant(tool) : policy::pii_grant{};
  // What the server asks reaches a person through the client: tokenized like every tool result.
  nlohmann::json shown = into_sandbox(std::move(params));
  std::optional<nlohmann::json> answer;
  {
    held_deadline held(*block);
    answer = co_await approver->elicit(std::move(shown));
  }
  if (!answer) co_return std::nullopt;
  // The answer goes to the tool's server: tokens in it are restored as for its arguments.
  co_return restore_granted(std::move(*answer), *vault, grant);
}

core::family<core::counter>& pii_detection_counter(core::metrics_registry& registry) {
  return registry.counters("harness_pii_detections_total",
                           "Distinct PII values tokenized on the sandbox data path, by detector kind.", {"kind"});
}

}  // namespace harness::execution
