// Between Beast's messages and ours: what a parsed request becomes, and what
// a request that could not be read is answered with (response_head.hpp
// writes answers). Only the connection sees Beast; routes see http_request and
// http_response.
#pragma once

#include <optional>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/system/error_code.hpp>

#include "harness/http/message.hpp"
#include "harness/http/server.hpp"

namespace harness::http {

using beast_request = boost::beast::http::request<boost::beast::http::string_body>;

// The request as handlers see it; its body is moved out of `raw`. Its id is
// the client's X-Request-Id when that is a safe id (core::is_safe_id), else a
// new "req_..." one.
http_request to_request(beast_request&& raw, const parsed_target& target);

// The answer to a request whose reading failed with `ec` (or ran out of
// time): 408, 431, 413 or 400, naming the limit; nullopt when the client
// simply went away and there is no one to answer.
std::optional<http_response> read_failure_response(const boost::system::error_code& ec, bool timed_out,
                                                   const server_config& config);

}  // namespace harness::http
