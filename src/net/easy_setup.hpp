// The per-transfer half of the curl loop: setting up a curl easy handle for a
// request, collecting its head and body as they arrive, and turning its end
// into the result the awaiting side gets. Engine thread only.
#pragma once

#include <optional>
#include <string>

#include <curl/curl.h>

#include "harness/core/error.hpp"
#include "transfer.hpp"

namespace harness::net::detail {

// Creates t.easy for t.req with its lane's options (the curl loop adds its own
// socket and TLS callbacks). Errors: bad_url (not http/https, credentials in
// it, a line break in a header).
status configure(transfer& t);

// The error a transfer curl ended with `code` reports.
error describe_failure(const transfer& t, CURLcode code);

// Completes whoever waits on a finished transfer: the fetch with its response
// or failure; a stream's open (when its head never came) or its reader.
void deliver(transfer& t, std::optional<error> failure);

}  // namespace harness::net::detail
