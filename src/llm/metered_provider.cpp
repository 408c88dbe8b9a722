// Counts and times the calls of any provider (HTTP, replay, recorder) for GET /metrics.
#include <algorithm>
#include <chrono>

#include "harness/llm/provider.hpp"

namespace harness::llm {
namespace {

core::family<core::counter>& request_counter(core::metrics_registry& metrics) {
  return metrics.counters("harness_llm_requests_total", "LLM calls, by provider and outcome.", {"provider", "outcome"});
}

core::family<core::counter>& token_counter(core::metrics_registry& metrics) {
  return metrics.counters("harness_llm_tokens_total",
                          "Tokens the LLM reported, by provider and direction (input, output).",
                          {"provider", "direction"});
}

core::family<core::histogram>& call_seconds(core::metrics_registry& metrics) {
  return metrics.histograms("harness_llm_request_duration_seconds",
                            "Time of one LLM call, retries and backoff included.", {"provider"});
}

class metered_provider final : public llm_provider {
 public:
  metered_provider(core::clock& clock, std::shared_ptr<llm_provider> inner,
                   std::shared_ptr<core::metrics_registry> metrics)
      : clock_(clock),
        inner_(std::move(inner)),
        metrics_(std::move(metrics)),
        name_(inner_->name()),
        requests_(request_counter(*metrics_)),
        tokens_(token_counter(*metrics_)),
        seconds_(call_seconds(*metrics_).with({name_})) {}

  boost::asio::awaitable<result<llm_turn>> complete(llm_request request) override {
    const auto started = clock_.steady_now();
    auto turn = co_await inner_->complete(std::move(request));
    seconds_.observe(std::chrono::duration<double>(clock_.steady_now() - started).count());
    const std::string outcome =
        turn ? std::string("ok") : std::string(turn.error().code.wire_name());  // error() returns a copy
    requests_.with({name_, outcome}).inc();
    if (turn) {
      tokens_.with({name_, "input"})
          .inc(static_cast<std::uint64_t>(std::max<std::int64_t>(0, turn->usage.input_tokens)));
      tokens_.with({name_, "output"})
          .inc(static_cast<std::uint64_t>(std::max<std::int64_t>(0, turn->usage.output_tokens)));
    }
    co_return turn;
  }

  std::string name() const override { return name_; }

 private:
  core::clock& clock_;
  std::shared_ptr<llm_provider> inner_;
  std::shared_ptr<core::metrics_registry> metrics_;
  std::string name_;
  core::family<core::counter>& requests_;
  core::family<core::counter>& tokens_;
  core::histogram& seconds_;
};

}  // namespace

void register_llm_metrics(core::metrics_registry& metrics, const std::string& provider) {
  request_counter(metrics).with({provider, "ok"});
  token_counter(metrics).with({provider, "input"});
  token_counter(metrics).with({provider, "output"});
  call_seconds(metrics).with({provider});
}

std::shared_ptr<llm_provider> create_metered_provider(core::clock& clock, std::shared_ptr<llm_provider> provider,
                                                      std::shared_ptr<core::metrics_registry> metrics) {
  if (!metrics) return provider;
  return std::make_shared<metered_provider>(clock, std::move(provider), std::move(metrics));
}

}  // namespace harness::llm
