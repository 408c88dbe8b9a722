// The OpenAI and Anthropic providers: one retry loop over a wire dialect.
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include "harness/core/logging.hpp"
#include "harness/llm/errors.hpp"
#include "harness/llm/provider.hpp"
#include "retry.hpp"
#include "text_tool_calls.hpp"
#include "wire_format.hpp"

namespace harness::llm {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

error cancelled() {
  return make_error(core::errc::cancelled, "the LLM call was cancelled");
}

long long ms_between(core::steady_time a, core::steady_time b) {
  return std::chrono::duration_cast<milliseconds>(b - a).count();
}

// Every string in a JSON value with the secret scrubbed out.
void scrub(nlohmann::json& j, const std::string& secret) {
  if (j.is_string()) {
    auto& s = j.get_ref<std::string&>();
    if (s.find(secret) != std::string::npos) s = detail::redact(s, secret);
  } else if (j.is_structured()) {
    for (auto& item : j) scrub(item, secret);
  }
}

class http_provider_impl final : public llm_provider {
 public:
  http_provider_impl(core::clock& clock, const llm_config& config, std::unique_ptr<detail::wire_dialect> dialect,
                     std::shared_ptr<http_transport> transport, retry_observer observer)
      : clock_(clock),
        config_(config),
        dialect_(std::move(dialect)),
        transport_(std::move(transport)),
        observer_(std::move(observer)),
        rng_(std::random_device{}()) {}

  std::string name() const override { return dialect_->name(); }

  asio::awaitable<result<llm_turn>> complete(llm_request request) override {
    // The GenAI conventions' client span of an inference call; the prompt and
    // the answer are content, which the span never carries.
    auto span = request.trace.child(fmt::format("chat {}", config_.model), telemetry::span_kind::client);
    span.set("gen_ai.operation.name", "chat");
    span.set("gen_ai.provider.name", name());
    span.set("gen_ai.request.model", config_.model);
    request.trace = span.parent();  // run() sends the call's traceparent
    auto turn = co_await guarded_run(std::move(request));
    if (turn) {
      span.set("gen_ai.usage.input_tokens", turn->usage.input_tokens);
      span.set("gen_ai.usage.output_tokens", turn->usage.output_tokens);
      span.set("gen_ai.response.finish_reasons", std::vector<std::string>{turn->stop_reason});
      span.set("harness.llm.attempts", turn->attempts);
    } else {
      span.fail(turn.error().code.wire_name());
    }
    co_return turn;
  }

 private:
  asio::awaitable<result<llm_turn>> guarded_run(llm_request request) {
    // asio throws operation_aborted from a co_await once the coroutine is
    // cancelled; errors are values here, so that becomes "cancelled".
    try {
      co_return co_await run(std::move(request));
    } catch (const boost::system::system_error& e) {
      if (e.code() == asio::error::operation_aborted) co_return cancelled();
      co_return make_error(llm::errc::internal, fmt::format("LLM call failed: {}", e.what()));
    } catch (const std::exception& e) {
      co_return make_error(llm::errc::internal, fmt::format("LLM call failed: {}", e.what()));
    }
  }

  asio::awaitable<result<llm_turn>> run(llm_request request) {
    const auto start = clock_.steady_now();
    auto deadline = start + config_.deadline;
    if (request.deadline && *request.deadline < deadline) deadline = *request.deadline;
    const bool send_tools = config_.tools != tool_mode::text && !request.tools.empty();
    net::request wire = dialect_->build(request, send_tools);
    // W3C trace context, so a provider (or a gateway before it) that traces joins ours.
    if (auto traceparent = request.trace.traceparent(); !traceparent.empty()) {
      wire.headers.emplace_back("traceparent", std::move(traceparent));
      if (!request.trace.context().state.empty())
        wire.headers.emplace_back("tracestate", request.trace.context().state);
    }
    auto cs = co_await asio::this_coro::cancellation_state;
    const long call = ++calls_;

    error last = make_error(llm::errc::deadline_exceeded, "the LLM call had no time left before its first attempt");
    for (int attempt = 1;; ++attempt) {
      if (cs.cancelled() != asio::cancellation_type::none) co_return cancelled();
      auto left = std::chrono::duration_cast<milliseconds>(deadline - clock_.steady_now());
      if (left <= milliseconds(0)) co_return deadline_error(last, attempt - 1, start);
      wire.timeout = std::min(config_.timeout, left);
      auto response = co_await transport_->send(wire);

      std::optional<milliseconds> server_wait;
      bool retryable = false;
      if (!response) {
        if (response.error().code == core::errc::cancelled) co_return response.error();
        last = response.error();
        retryable = last.code == llm::errc::connection_failed || last.code == llm::errc::timeout;
      } else if (response->status >= 200 && response->status < 300) {
        auto turn = parse(response->body);
        if (!turn) co_return turn.error();
        finish(*turn, request, attempt);
        core::log_debug("llm call {} {} model={} attempts={} in={} out={} tool_calls={} {}ms", call, name(),
                        config_.model, attempt, turn->usage.input_tokens, turn->usage.output_tokens,
                        turn->tool_calls.size(), ms_between(start, clock_.steady_now()));
        co_return std::move(*turn);
      } else {
        last = detail::http_status_error(response->status, response->body, config_);
        retryable = detail::is_retryable_status(response->status);
        server_wait = detail::retry_after(response->headers, clock_.epoch_ms() / 1000);
      }

      if (!retryable) co_return with_attempts(std::move(last), attempt);
      if (attempt > config_.retry.max_retries) co_return with_attempts(std::move(last), attempt);
      milliseconds wait = server_wait ? *server_wait : backoff(attempt);
      if (clock_.steady_now() + wait >= deadline) {
        last.hint += fmt::format("{}the next retry ({} ms{}) would pass the LLM deadline (LLM_DEADLINE_MS)",
                                 last.hint.empty() ? "" : "; ", wait.count(), server_wait ? ", Retry-After" : "");
        co_return with_attempts(std::move(last), attempt);
      }
      core::log_warn("llm call {} {}: {} (attempt {}/{}), retrying in {} ms", call, name(), last.code.wire_name(),
                     attempt, config_.retry.max_retries + 1, wait.count());
      if (observer_) observer_(attempt, wait, last);
      auto timer = clock_.make_timer(co_await asio::this_coro::executor);
      timer->expires_at(clock_.steady_now() + wait);
      const bool waited = co_await timer->wait();
      if (!waited) co_return cancelled();
    }
  }

  // Ids for calls that came without one, the text-mode fallback, and the key
  // scrubbed from what the model wrote (it goes to the sandbox and the store).
  void finish(llm_turn& turn, const llm_request& request, int attempt) const {
    turn.attempts = attempt;
    for (std::size_t i = 0; i < turn.tool_calls.size(); ++i) {
      if (turn.tool_calls[i].id.empty()) turn.tool_calls[i].id = fmt::format("call_{}", i + 1);
    }
    const bool from_text = config_.tools == tool_mode::text || request.tools.empty() ||
                           (config_.tools == tool_mode::automatic && turn.tool_calls.empty());
    if (from_text && turn.tool_calls.empty()) {
      if (auto code = extract_javascript_block(turn.text)) {
        tool_call call;
        call.id = "text_call_1";
        call.name = request.tools.empty() ? "execute_code" : request.tools.front().name;
        call.arguments = {{"code", std::move(*code)}};
        call.from_text = true;
        turn.tool_calls.push_back(std::move(call));
      }
    }
    if (!config_.api_key.empty()) {
      turn.text = detail::redact(std::move(turn.text), config_.api_key);
      for (auto& c : turn.tool_calls) scrub(c.arguments, config_.api_key);
    }
  }

  // A server that sends a field with an unexpected type (an id that is a
  // number...) makes nlohmann throw; that is a bad answer, not a crash.
  result<llm_turn> parse(const std::string& body) const {
    try {
      return dialect_->parse(body);
    } catch (const nlohmann::json::exception& e) {
      return detail::bad_response(dialect_->name(), e.what());
    }
  }

  milliseconds backoff(int attempt) {
    std::lock_guard lock(rng_mutex_);  // the provider may be shared by coroutines on several threads
    return detail::backoff_delay(config_.retry, attempt, rng_);
  }

  static error with_attempts(error e, int attempts) {
    if (attempts > 1) e.message += fmt::format(" [after {} attempts]", attempts);
    return e;
  }

  error deadline_error(const error& last, int attempts, core::steady_time start) const {
    return make_error(llm::errc::deadline_exceeded,
                      fmt::format("the LLM call ran out of time after {} ms and {} attempt(s); last failure: {}",
                                  ms_between(start, clock_.steady_now()), attempts, last.message),
                      "raise LLM_DEADLINE_MS, or check the LLM server");
  }

  core::clock& clock_;
  llm_config config_;
  std::unique_ptr<detail::wire_dialect> dialect_;
  std::shared_ptr<http_transport> transport_;
  retry_observer observer_;
  std::mutex rng_mutex_;
  std::mt19937_64 rng_;
  std::atomic<long> calls_{0};
};

}  // namespace

std::shared_ptr<llm_provider> create_openai_provider(core::clock& clock, const llm_config& config,
                                                     std::shared_ptr<http_transport> transport,
                                                     retry_observer observer) {
  return std::make_shared<http_provider_impl>(clock, config, detail::make_openai_dialect(config), std::move(transport),
                                              std::move(observer));
}

std::shared_ptr<llm_provider> create_anthropic_provider(core::clock& clock, const llm_config& config,
                                                        std::shared_ptr<http_transport> transport,
                                                        retry_observer observer) {
  return std::make_shared<http_provider_impl>(clock, config, detail::make_anthropic_dialect(config),
                                              std::move(transport), std::move(observer));
}

}  // namespace harness::llm
