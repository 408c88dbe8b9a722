#include "beast_message.hpp"

#include <iterator>
#include <string>

#include <boost/asio/error.hpp>
#include <boost/beast/http/error.hpp>

#include "harness/core/ids.hpp"
#include "harness/http/errors.hpp"

namespace harness::http {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;

http_request to_request(beast_request&& raw, const parsed_target& target) {
  http_request request;
  request.method = std::string(raw.method_string());
  request.target = std::string(raw.target());
  request.path = target.path;
  request.query = target.query;
  request.headers.reserve(static_cast<std::size_t>(std::distance(raw.begin(), raw.end())));
  for (const auto& field : raw) request.headers.emplace_back(field.name_string(), field.value());
  request.body = std::move(raw.body());
  auto id = request.header("X-Request-Id");
  request.request_id = id && core::is_safe_id(*id) ? std::string(*id) : core::make_id("req_");
  return request;
}

std::optional<http_response> read_failure_response(const boost::system::error_code& ec, bool timed_out,
                                                   const server_config& config) {
  if (timed_out) {
    return error_response(http::errc::request_timeout, "the request did not arrive within " +
                                                           std::to_string(config.request_timeout.count()) +
                                                           " ms; send the whole request promptly");
  }
  if (ec == bhttp::error::header_limit) {
    return error_response(http::errc::headers_too_large,
                          "the request headers exceed " + std::to_string(config.header_limit) + " bytes");
  }
  if (ec == bhttp::error::body_limit) {
    return error_response(http::errc::body_too_large,
                          "the body exceeds the limit of " + std::to_string(config.body_limit) + " bytes");
  }
  if (ec == bhttp::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
      ec == asio::error::operation_aborted || ec == bhttp::error::partial_message) {
    return std::nullopt;
  }
  return error_response(http::errc::bad_request, "the request is not valid HTTP/1.1: " + ec.message());
}

}  // namespace harness::http
