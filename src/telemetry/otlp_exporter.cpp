#include <fmt/format.h>

#include "harness/core/errors.hpp"
#include "harness/telemetry/otlp.hpp"

namespace harness::telemetry {
namespace {

class otlp_exporter final : public span_exporter {
 public:
  otlp_exporter(std::shared_ptr<net::http_client> client, otlp_exporter_options options)
      : client_(std::move(client)), options_(std::move(options)) {}

  boost::asio::awaitable<status> send(std::vector<span_data> batch) override {
    net::request r;
    r.method = "POST";
    r.url = options_.url;
    r.timeout = options_.timeout;
    r.max_response_bytes = 64 * 1024;  // an ExportTraceServiceResponse is small; a larger answer is not one
    r.headers = options_.headers;
    if (options_.protocol == otlp_protocol::json) {
      r.headers.emplace_back("Content-Type", "application/json");
      r.body = encode_otlp_json(batch, options_.resource);
    } else {
      r.headers.emplace_back("Content-Type", "application/x-protobuf");
      r.body = encode_otlp_protobuf(batch, options_.resource);
    }
    auto answer = co_await client_->fetch(std::move(r));
    if (!answer) co_return answer.error();
    if (answer->status < 200 || answer->status > 299) {
      co_return make_error(core::errc::internal_error,
                           fmt::format("the OTLP endpoint answered HTTP {}", answer->status),
                           "check OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS");
    }
    co_return status{};
  }

 private:
  std::shared_ptr<net::http_client> client_;
  otlp_exporter_options options_;
};

}  // namespace

std::unique_ptr<span_exporter> create_otlp_exporter(std::shared_ptr<net::http_client> client,
                                                    otlp_exporter_options options) {
  return std::make_unique<otlp_exporter>(std::move(client), std::move(options));
}

}  // namespace harness::telemetry
