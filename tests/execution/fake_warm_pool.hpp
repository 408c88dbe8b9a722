// A warm_pool whose sandboxes are in-memory runtimes (bridge's fake_channel
// answering the protocol), so the real sandbox_session and runtime_session
// (of the agent's tasks and of the execution service) run without Docker.
// Counts what a leak test needs: claims, containers alive, stops. Claims can
// be held at a gate, as a cold start keeps a request waiting, and each
// sandbox can keep a REPL's state (a counter of its blocks).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bridge/fake_channel.hpp"
#include "harness/core/async_event.hpp"
#include "harness/execution/warm_pool.hpp"
#include "harness/sandbox/sandbox.hpp"

namespace harness::execution::testing {

class fake_pool final : public warm_pool {
 public:
  struct counters {
    int claims = 0;
    int alive = 0;  // containers claimed and neither stopped nor destroyed
    int stops = 0;
    int execs = 0;
    int blocks_running = 0;  // exec frames sent and not answered (hang mode)
  };

  explicit fake_pool(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}

  // What a block returns: by default "ran: <code>".
  std::function<nlohmann::json(const std::string& code)> value_of = [](const std::string& code) {
    return nlohmann::json("ran: " + code);
  };
  // Each block returns how many blocks its sandbox has run, itself included
  // (1, 2, ...), like code that bumps a global of the REPL: blocks that share
  // a sandbox count on, a fresh sandbox starts at 1. Overrides value_of.
  bool count_blocks = false;
  // Blocks get no answer: they run until the container is stopped.
  bool hang = false;
  // Set: each claim waits until it is set() (the test's executor must run meanwhile).
  std::shared_ptr<core::async_event> claim_gate;
  std::optional<error> claim_error;

  const counters& count() const { return *counters_; }

  void start() override {}
  boost::asio::awaitable<void> shutdown() override { co_return; }
  pool_stats stats() const override { return {}; }

  boost::asio::awaitable<result<sandbox_lease>> claim() override {
    ++counters_->claims;
    if (claim_gate) {
      auto gate = claim_gate;  // alive across the wait, whatever the test does with its own
      co_await gate->wait();
    }
    if (claim_error) co_return *claim_error;
    auto channel = std::make_shared<bridge::testing::fake_channel>(executor_);
    std::weak_ptr<bridge::testing::fake_channel> weak = channel;
    auto blocks = std::make_shared<int>(0);  // this sandbox's REPL state
    channel->respond = [this, weak, c = counters_, blocks](const std::string& line) {
      auto self = weak.lock();
      auto frame = nlohmann::json::parse(line, nullptr, false);
      if (!self || !frame.is_object()) return;
      auto type = frame.value("type", std::string());
      auto id = frame.value("id", std::string());
      if (type == "exec") {
        ++c->execs;
        if (hang) {
          ++c->blocks_running;
          return;
        }
        ++*blocks;
        nlohmann::json value = count_blocks ? nlohmann::json(*blocks) : value_of(frame["code"]);
        self->push(nlohmann::json{{"type", "done"}, {"exec", id}, {"ok", true}, {"value", std::move(value)}}.dump());
      } else if (type == "put") {
        self->push(nlohmann::json{{"type", "done"}, {"exec", id}, {"ok", true}}.dump());
      }
    };
    sandbox_lease lease;
    lease.container = std::make_unique<fake_container>(counters_, weak, "c" + std::to_string(counters_->claims));
    lease.channel = std::make_unique<channel_handle>(std::move(channel));
    lease.warm = true;
    ++counters_->alive;
    co_return lease;
  }

 private:
  // The session owns the channel through this; the container reaches it weakly.
  class channel_handle final : public bridge::frame_channel {
   public:
    explicit channel_handle(std::shared_ptr<bridge::testing::fake_channel> channel) : channel_(std::move(channel)) {}
    boost::asio::awaitable<result<std::string>> read_line() override { return channel_->read_line(); }
    boost::asio::awaitable<status> write_line(std::string line) override {
      return channel_->write_line(std::move(line));
    }
    void cancel() override { channel_->cancel(); }

   private:
    std::shared_ptr<bridge::testing::fake_channel> channel_;
  };

  class no_stream final : public docker::attach_stream {
   public:
    sandbox::task<status> write_stdin(std::string_view, std::chrono::milliseconds) override {
      co_return make_error(harness::bridge::errc::channel_closed, "the fake container has no stream");
    }
    status close_stdin() override { return {}; }
    sandbox::task<result<std::optional<docker::output_chunk>>> read(std::chrono::milliseconds) override {
      co_return std::optional<docker::output_chunk>();
    }
    void close() override {}
  };

  class fake_container final : public sandbox::sandbox_container {
   public:
    fake_container(std::shared_ptr<counters> c, std::weak_ptr<bridge::testing::fake_channel> channel, std::string id)
        : counters_(std::move(c)), channel_(std::move(channel)), id_(std::move(id)) {}
    ~fake_container() override { end(); }
    const std::string& id() const override { return id_; }
    const std::string& task_id() const override { return id_; }
    docker::attach_stream& stream() override { return stream_; }
    sandbox::task<status> stop() override {
      if (!stopped_) ++counters_->stops;
      end();
      co_return status{};
    }

   private:
    // Stopped: a block in flight ends (its channel closes), and it no longer counts as alive.
    void end() {
      if (stopped_) return;
      stopped_ = true;
      --counters_->alive;
      if (auto channel = channel_.lock()) channel->close();
    }
    std::shared_ptr<counters> counters_;
    std::weak_ptr<bridge::testing::fake_channel> channel_;
    std::string id_;
    no_stream stream_;
    bool stopped_ = false;
  };

  boost::asio::any_io_executor executor_;
  std::shared_ptr<counters> counters_ = std::make_shared<counters>();
};

}  // namespace harness::execution::testing
