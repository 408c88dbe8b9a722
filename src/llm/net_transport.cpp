// The LLM's transport on the one outbound HTTP client: a request becomes a
// net POST, and net's errors become the LLM's codes with the hints an
// operator of an LLM needs (which setting to change).
#include <fmt/format.h>

#include "harness/llm/errors.hpp"
#include "harness/llm/http_transport.hpp"
#include "harness/net/errors.hpp"
#include "harness/net/http_client.hpp"
#include "harness/net/url.hpp"

namespace harness::llm {
namespace {

namespace asio = boost::asio;

class net_transport final : public http_transport {
 public:
  net_transport(std::shared_ptr<net::curl_loop> loop, const net_transport_options& options)
      : options_(options), client_(net::create_http_client(std::move(loop), client_options(options))) {}

  asio::awaitable<result<net::response>> send(net::request request) override {
    net::request r;
    r.method = "POST";
    r.url = request.url;
    r.headers = std::move(request.headers);
    r.body = std::move(request.body);
    r.timeout = request.timeout;
    r.max_response_bytes = options_.max_response_bytes;
    auto answer = co_await client_->fetch(std::move(r));
    if (!answer) co_return translate(answer.error(), request);
    co_return std::move(*answer);
  }

 private:
  static net::client_options client_options(const net_transport_options& options) {
    net::client_options out;
    out.max_concurrent = options.max_concurrent;
    out.max_queued = options.max_queued;
    if (options.proxy == "none") {
      out.proxy = "";
    } else if (!options.proxy.empty()) {
      out.proxy = options.proxy;
    }
    return out;
  }

  error translate(const error& e, const net::request& request) const {
    const std::string url = net::printable_url(request.url);
    if (e.code == net::errc::timeout) {
      return make_error(llm::errc::timeout,
                        fmt::format("no complete answer from {} within {} ms", url, request.timeout.count()),
                        "raise LLM_TIMEOUT_MS for slow models, or check that the server is up");
    }
    if (e.code == net::errc::response_too_large) {
      return make_error(llm::errc::response_too_large,
                        fmt::format("the answer from {} exceeded {} bytes", url, options_.max_response_bytes),
                        "lower LLM_MAX_TOKENS");
    }
    if (e.code == net::errc::busy) {
      return make_error(llm::errc::busy, fmt::format("too many LLM calls waiting ({} queued)", options_.max_queued),
                        "raise LLM_MAX_CONCURRENT or run fewer tasks at once");
    }
    if (e.code == net::errc::connection_failed || e.code == net::errc::tls_failed || e.code == net::errc::bad_url) {
      return make_error(
          llm::errc::connection_failed, "could not talk to the LLM: " + e.message,
          e.code == net::errc::tls_failed ? e.hint : "check LLM_BASE_URL and that the server is reachable");
    }
    return e;  // cancelled
  }

  net_transport_options options_;
  std::shared_ptr<net::http_client> client_;
};

}  // namespace

std::shared_ptr<http_transport> create_net_transport(std::shared_ptr<net::curl_loop> loop,
                                                     const net_transport_options& options) {
  return std::make_shared<net_transport>(std::move(loop), options);
}

}  // namespace harness::llm
