#include "harness/mcp_server/stdio_server.hpp"
#include "harness/core/json_parse.hpp"

#include <unistd.h>

#include <deque>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "harness/core/async_event.hpp"
#include "harness/core/async_signal.hpp"
#include "harness/core/line_splitter.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/mcp_server/modern.hpp"
#include "jsonrpc.hpp"

namespace harness::mcp_server {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

// Lines for stdout, written one after another by one coroutine: replies of
// concurrent requests never interleave.
class line_writer {
 public:
  line_writer(const asio::any_io_executor& executor, core::clock& clock, int fd)
      : out_(executor, ::dup(fd)), wake_(executor, clock) {}

  void send(const json& message) {
    if (broken_) return;
    queue_.push_back(message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
    wake_.notify_all();
  }

  // Writes until close() and the queue is empty, or stdout fails.
  asio::awaitable<void> run() {
    for (;;) {
      while (queue_.empty() && !closing_) co_await wake_.wait();
      if (queue_.empty()) break;
      std::string line = std::move(queue_.front());
      queue_.pop_front();
      auto [ec, n] = co_await asio::async_write(out_, asio::buffer(line), asio::as_tuple(asio::use_awaitable));
      if (ec) {
        core::log_warn("mcp stdio: cannot write to stdout ({}); the client has gone", ec.message());
        broken_ = true;
        break;
      }
    }
  }

  void close() {
    closing_ = true;
    wake_.notify_all();
  }

 private:
  asio::posix::stream_descriptor out_;
  core::async_signal wake_;
  std::deque<std::string> queue_;
  bool closing_ = false;
  bool broken_ = false;
};

// One message: of the 2026-07-28 era (its _meta names the version) to the
// face's stateless side, acting for the operator's user; else to the one
// 2025-era session of this client.
asio::awaitable<void> answer(std::shared_ptr<mcp_face> face, std::shared_ptr<mcp_session> session, json message,
                             std::shared_ptr<line_writer> writer, std::shared_ptr<std::size_t> running,
                             std::shared_ptr<core::async_signal> settled) {
  notify_fn notify = [writer](json note) { writer->send(note); };  // named: no lambda temporary in co_await (GCC 12)
  std::optional<json> reply;
  if (modern::claimed_version(message)) {
    reply = modern::check_envelope(message);
    if (reply && kind_of(message) != message_kind::request) {
      reply.reset();  // a notification gets no answer, not even an error
    } else if (!reply) {
      mcp_caller caller{session->user_id(), {}, true};  // stdio is the operator's: admin, as open_private says
      // Over stdio a client cancels with notifications/cancelled, not by leaving.
      const std::shared_ptr<core::abandonment> never;
      reply = co_await face->handle_modern(std::move(message), std::move(caller), notify, never);
    }
  } else {
    reply = co_await session->handle(std::move(message), notify);
  }
  if (reply) writer->send(*reply);
  --*running;
  settled->notify_all();
}

asio::awaitable<void> write_all(std::shared_ptr<line_writer> writer, core::async_event& done) {
  co_await writer->run();
  done.set();
}

}  // namespace

asio::awaitable<void> serve_stdio(std::shared_ptr<mcp_face> face, core::clock& clock, std::string user_id, int in,
                                  int out) {
  auto executor = co_await asio::this_coro::executor;
  auto session = face->open_private(std::move(user_id));
  if (!session) co_return;
  auto writer = std::make_shared<line_writer>(executor, clock, out);
  core::async_event written(executor);
  auto writing = write_all(writer, written);  // a local: GCC 12 and temporaries in co_spawn, see run_blocking.hpp
  core::spawn_logged(executor, std::move(writing), "mcp stdio: writing");
  auto running = std::make_shared<std::size_t>(0);
  auto settled = std::make_shared<core::async_signal>(executor, clock);

  // What the splitter found in one read: complete lines, and nullopt for a
  // line past the limit (it was dropped).
  std::deque<std::optional<std::string>> found;
  core::line_splitter lines(
      stdio_max_line, [&](std::string_view line) { found.emplace_back(std::string(line)); },
      [&](std::size_t) { found.emplace_back(std::nullopt); });
  asio::posix::stream_descriptor input(executor, ::dup(in));
  std::string chunk(64 * 1024, '\0');
  for (bool open = true; open;) {
    auto [ec, n] = co_await input.async_read_some(asio::buffer(chunk), asio::as_tuple(asio::use_awaitable));
    if (ec) {
      open = false;
      if (!lines.partial().empty()) found.emplace_back(std::string(lines.partial()));  // a last line without "\n"
    } else {
      lines.feed(std::string_view(chunk.data(), n));
    }
    for (; !found.empty(); found.pop_front()) {
      if (!found.front()) {
        writer->send(jsonrpc::error(nullptr, jsonrpc::parse_error, "the message is longer than the line limit"));
        continue;
      }
      const std::string& text = *found.front();
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::string why;
      json message = core::parse_json(text, &why);
      if (message.is_discarded()) {
        writer->send(jsonrpc::error(nullptr, jsonrpc::parse_error, "Parse error: " + why));
        continue;
      }
      ++*running;
      auto answering = answer(face, session, std::move(message), writer, running, settled);
      core::spawn_logged(executor, std::move(answering), "mcp stdio: answering");
    }
  }
  // stdin ended: the client has gone (or asks us to go). Stop what still
  // runs, let the answers drain, then stop writing.
  co_await session->close();
  while (*running > 0) co_await settled->wait();
  writer->close();
  co_await written.wait();
}

}  // namespace harness::mcp_server
