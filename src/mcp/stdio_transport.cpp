// stdio transport: newline-delimited JSON on the child's stdin/stdout, stderr
// drained into our log (so a chatty child never blocks on a full pipe).
#include <signal.h>

#include <deque>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "child_process.hpp"
#include "harness/core/async_signal.hpp"
#include "harness/core/line_splitter.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/with_deadline.hpp"
#include "harness/mcp/errors.hpp"
#include "harness/mcp/transport.hpp"
#include "message_errors.hpp"

namespace harness::mcp {
namespace asio = boost::asio;
using detail::printable;
using nlohmann::json;

namespace {

constexpr std::size_t stderr_tail_lines = 20;
constexpr std::size_t stderr_line_cap = 4096;
constexpr std::chrono::seconds write_timeout{30};
constexpr std::size_t batch_bytes = 256 * 1024;
// After the server exits, what it wrote is still in the pipe; read_stdout gets this long to take it.
constexpr std::chrono::milliseconds exit_drain{100};

class stdio_transport final : public transport, public std::enable_shared_from_this<stdio_transport> {
 public:
  stdio_transport(asio::any_io_executor executor, core::clock& clock, server_config config, client_limits limits)
      : executor_(std::move(executor)),
        clock_(clock),
        config_(std::move(config)),
        limits_(limits),
        wake_writer_(executor_, clock),
        stdout_lines_(
            limits.max_message_bytes, [this](std::string_view line) { on_stdout_line(line); },
            [this](std::size_t n) {
              undeliverable(detail::message_too_large(config_.name, n, limits_.max_message_bytes),
                            oversized_.identity());
              oversized_.reset();
            },
            [this](std::string_view bytes) { oversized_.feed(bytes); }),
        stderr_lines_(
            stderr_line_cap, [this](std::string_view line) { on_stderr_line(line); },
            [this](std::size_t n) { on_stderr_line("[" + std::to_string(n) + " bytes of stderr without newline]"); }) {}

  ~stdio_transport() override = default;

  asio::awaitable<status> open(transport_handlers handlers) override {
    handlers_ = std::move(handlers);
    detail::spawn_request request;
    request.command = config_.command;
    request.args = config_.args;
    request.env = detail::minimal_environment();
    for (const auto& [k, v] : config_.env) request.env[k] = v;
    request.cwd = config_.cwd;
    auto child = detail::child_process::spawn(executor_, request);
    if (!child) co_return child.error();
    child_ = std::move(*child);
    core::log_info("mcp {}: started `{}` (pid {})", config_.name, config_.command, child_->pid());
    boost::system::error_code blocking;
    child_->stdin_pipe().non_blocking(true, blocking);  // so that no write below blocks the I/O thread
    stdin_non_blocking_ = !blocking;
    auto self = shared_from_this();
    core::spawn_logged(executor_, read_stdout(self), "mcp " + config_.name + ": reading stdout");
    core::spawn_logged(executor_, read_stderr(self), "mcp " + config_.name + ": reading stderr");
    core::spawn_logged(executor_, write_loop(self), "mcp " + config_.name + ": writing stdin");
    core::spawn_logged(executor_, watch_exit(self), "mcp " + config_.name + ": watching the process");
    co_return status{};
  }

  asio::awaitable<status> send(json message) override {
    if (!child_ || closing_ || lost_) {
      co_return make_error(mcp::errc::connection_lost, "server " + config_.name + " is not running");
    }
    std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
    line.push_back('\n');
    // With nothing queued and the writer idle, most lines fit in the pipe and
    // go now, without waking the writer (a hop through the executor on every
    // tool call's path). What did not fit, or failed, is the writer's.
    if (outbox_.empty() && !writer_busy_ && stdin_non_blocking_) {
      boost::system::error_code ec;
      const std::size_t now = child_->stdin_pipe().write_some(asio::buffer(line), ec);
      if (!ec && now == line.size()) co_return status{};
      if (!ec) line.erase(0, now);
    }
    outbox_.push_back(std::move(line));
    wake_writer_.notify_all();
    co_return status{};
  }

  bool queues_sends() const override { return true; }

  void set_protocol_version(const std::string&) override {}
  void on_initialized() override {}
  void reset_session() override {}

  asio::awaitable<void> close() override {
    if (closing_ || !child_) co_return;
    closing_ = true;
    wake_writer_.notify_all();
    auto self = shared_from_this();  // keep alive across the waits
    boost::system::error_code ec;
    child_->stdin_pipe().close(ec);  // step 1: close stdin, the server should exit
    if (!co_await child_->wait_exit(clock_, limits_.shutdown_grace)) {
      child_->signal(SIGTERM);  // step 2
      if (!co_await child_->wait_exit(clock_, limits_.shutdown_grace)) {
        core::log_warn("mcp {}: server ignored SIGTERM, killing it", config_.name);
        child_->signal(SIGKILL);  // step 3
        co_await child_->wait_exit(clock_, std::chrono::seconds(5));
      }
    }
    child_->stdout_pipe().close(ec);
    child_->stderr_pipe().close(ec);
    core::log_info("mcp {}: stopped ({})", config_.name, child_->exit_description());
  }

  std::string describe() const override { return "stdio:" + config_.command; }
  int pid() const override { return child_ ? child_->pid() : 0; }

 private:
  static asio::awaitable<void> read_stdout(std::shared_ptr<stdio_transport> self) {
    std::vector<char> buffer(64 * 1024);
    for (;;) {
      auto [ec, n] = co_await self->child_->stdout_pipe().async_read_some(asio::buffer(buffer),
                                                                          asio::as_tuple(asio::use_awaitable));
      if (ec) break;
      self->stdout_lines_.feed(std::string_view(buffer.data(), n));
    }
    co_await self->connection_lost("closed its stdout");
  }

  static asio::awaitable<void> read_stderr(std::shared_ptr<stdio_transport> self) {
    std::vector<char> buffer(16 * 1024);
    for (;;) {
      auto [ec, n] = co_await self->child_->stderr_pipe().async_read_some(asio::buffer(buffer),
                                                                          asio::as_tuple(asio::use_awaitable));
      if (ec) break;
      self->stderr_lines_.feed(std::string_view(buffer.data(), n));
    }
  }

  // The server's exit ends the connection even when no EOF comes: a helper it started
  // with inherited stdio holds stdout open for as long as it lives. That helper is
  // killed with the rest of the server's process group.
  static asio::awaitable<void> watch_exit(std::shared_ptr<stdio_transport> self) {
    while (!self->closing_ && !self->lost_) {
      if (co_await self->child_->wait_exit(self->clock_, std::chrono::hours(1))) break;
    }
    if (self->closing_ || self->lost_) co_return;
    auto drain = self->clock_.make_timer(self->executor_);
    drain->expires_at(self->clock_.steady_now() + exit_drain);
    co_await drain->wait();
    if (self->closing_ || self->lost_) co_return;  // stdout ended: read_stdout reported it
    self->child_->kill_group();
    co_await self->connection_lost("exited, leaving its stdout open to a process it started");
    // Should that process have left the group, our ends of its pipes close anyway, so the
    // readers (and this transport) do not wait for it.
    boost::system::error_code ignored;
    self->child_->stdout_pipe().close(ignored);
    self->child_->stderr_pipe().close(ignored);
  }

  static asio::awaitable<void> write_loop(std::shared_ptr<stdio_transport> self) {
    auto& stdin_pipe = self->child_->stdin_pipe();
    while (!self->closing_ && !self->lost_) {
      if (self->outbox_.empty()) {
        co_await self->wake_writer_.wait();
        continue;
      }
      // Lines that queued up go out in one write (up to batch_bytes).
      std::string line = std::move(self->outbox_.front());
      self->outbox_.pop_front();
      while (!self->outbox_.empty() && line.size() + self->outbox_.front().size() < batch_bytes) {
        line += self->outbox_.front();
        self->outbox_.pop_front();
      }
      struct busy {
        bool& flag;
        explicit busy(bool& f) : flag(f) { flag = true; }
        ~busy() { flag = false; }
      } writing{self->writer_busy_};
      boost::system::error_code ec;
      std::size_t now = self->stdin_non_blocking_ ? stdin_pipe.write_some(asio::buffer(line), ec) : 0;
      if (ec == asio::error::would_block || ec == asio::error::try_again) ec.clear();
      bool timed_out = false;
      if (!ec && now < line.size()) {
        // The rest waits for the child to read. One that stops reading stdin
        // would block us forever: this write has a deadline.
        auto write = asio::async_write(stdin_pipe, asio::buffer(line) + now, asio::as_tuple(asio::use_awaitable));
        auto written = co_await core::with_deadline(self->clock_, std::move(write), write_timeout);
        timed_out = !written;
        ec = written ? std::get<0>(*written) : asio::error::operation_aborted;
      }
      if (ec) {
        if (!self->closing_) {
          core::log_warn("mcp {}: writing to stdin failed: {}", self->config_.name,
                         timed_out ? "the server stopped reading for 30 s" : ec.message());
          self->child_->signal(SIGKILL);  // stdout EOF follows and reports the loss
        }
        co_return;
      }
    }
  }

  void on_stdout_line(std::string_view line) {
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    auto parsed = detail::parse_message(line);
    if (!parsed) {
      const std::string shown = redacted(line);
      undeliverable(detail::message_not_json(config_.name, shown, redacted(parsed.error().message)),
                    identify_message(line));
      return;
    }
    json message = std::move(*parsed);
    if (!(message.is_object() || message.is_array())) {
      core::log_warn("mcp {}: ignored a stdout line that is not a JSON-RPC message: {}", config_.name,
                     printable(redacted(line)));
      return;
    }
    if (message.is_array()) {  // a JSON-RPC batch (2025-03-26)
      for (auto& item : message) {
        if (item.is_object()) handlers_.on_message(std::move(item));
      }
      return;
    }
    handlers_.on_message(std::move(message));
  }

  // A user's instance replaces the user's secret values (secret_fill.hpp).
  std::string redacted(std::string_view line) const {
    return config_.redact ? config_.redact(std::string(line)) : std::string(line);
  }

  void on_stderr_line(std::string_view raw) {
    const std::string line = redacted(raw);
    core::log_debug("mcp {} stderr: {}", config_.name, printable(line, 1000));
    stderr_tail_.emplace_back(printable(line, 300));
    if (stderr_tail_.size() > stderr_tail_lines) stderr_tail_.pop_front();
  }

  asio::awaitable<void> connection_lost(const std::string& what) {
    if (lost_) co_return;
    lost_ = true;
    wake_writer_.notify_all();
    if (closing_) co_return;
    // Give the child a moment to finish exiting so we can say how it died.
    co_await child_->wait_exit(clock_, std::chrono::milliseconds(500));
    std::string reason = "server " + config_.name + " " + what;
    if (child_->exited()) reason += " (" + child_->exit_description() + ")";
    if (!stderr_tail_.empty()) reason += "; last stderr: " + stderr_tail_.back();
    core::log_warn("mcp {}: {}", config_.name, reason);
    if (!child_->exited()) {
      child_->signal(SIGKILL);
      co_await child_->wait_exit(clock_, std::chrono::seconds(5));
    }
    report_cut_short(reason);
    if (handlers_.on_closed) handlers_.on_closed(make_error(mcp::errc::connection_lost, reason));
  }

  // The server died in the middle of a line: that message (often the reply the
  // call waits for) is cut short. Reported before the loss itself, so the request
  // it answered gets this more precise error.
  void report_cut_short(const std::string& reason) {
    message_identity identity =
        stdout_lines_.dropping() ? oversized_.identity() : identify_message(stdout_lines_.partial());
    if (identity.bytes == 0 || !identity.looks_like_message) return;
    undeliverable(make_error(mcp::errc::connection_lost, reason + "; its last message was cut short after " +
                                                             std::to_string(identity.bytes) + " bytes"),
                  std::move(identity));
  }

  void undeliverable(error problem, message_identity identity) {
    if (handlers_.on_undeliverable) handlers_.on_undeliverable({std::move(problem), std::move(identity)});
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  server_config config_;
  client_limits limits_;
  transport_handlers handlers_;
  std::unique_ptr<detail::child_process> child_;
  std::deque<std::string> outbox_;
  core::async_signal wake_writer_;      // the outbox has a line, or the transport ends
  message_identity_scanner oversized_;  // reads the stdout line being dropped as too large
  core::line_splitter stdout_lines_;
  core::line_splitter stderr_lines_;
  std::deque<std::string> stderr_tail_;
  bool closing_ = false;
  bool lost_ = false;
  bool stdin_non_blocking_ = false;
  bool writer_busy_ = false;  // the writer holds a line: send() must queue behind it
};

}  // namespace

std::shared_ptr<transport> create_stdio_transport(asio::any_io_executor executor, core::clock& clock,
                                                  server_config config, client_limits limits) {
  return std::make_shared<stdio_transport>(std::move(executor), clock, std::move(config), limits);
}

std::shared_ptr<transport> create_transport(asio::any_io_executor executor, core::clock& clock, server_config config,
                                            client_limits limits, const remote_access& remote) {
  if (config.kind == transport_kind::sse) {
    return create_sse_transport(std::move(executor), clock, std::move(config), limits, remote.http);
  }
  if (config.kind == transport_kind::http) {
    auto authorizer = remote.authorizer_for ? remote.authorizer_for(config) : nullptr;
    return create_http_transport(std::move(executor), clock, std::move(config), limits, remote.http,
                                 std::move(authorizer));
  }
  return create_stdio_transport(std::move(executor), clock, std::move(config), limits);
}

}  // namespace harness::mcp
