// Random identifiers. Two makers, by what the id is for:
// - make_id names a thing (a request, task, conversation, approval, API key):
//   the id is shown to callers and written to logs, and knowing it grants
//   nothing by itself. NOT for secrets.
// - make_secret_id makes an id whose knowledge is the access (an MCP session
//   id, the call socket's name and token): it must stay unguessable even to
//   someone who has seen many ids.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "harness/core/error.hpp"

namespace harness::core {

// prefix + 2 * `bytes` lowercase hex characters (24 by default: 96 bits), from
// the kernel's CSPRNG (getrandom) through a per-thread buffer, so no id tells
// anything about another; e.g. make_id("task_"). Never fails (no randomness at
// all aborts). Not for secrets: use make_secret_id.
std::string make_id(std::string_view prefix, std::size_t bytes = 12);

// prefix + 2 * `bytes` lowercase hex characters, read from getrandom for this
// id alone (no random bytes are kept in memory for later ids). Error
// internal_error when the kernel gives no random bytes (then no id may be made).
result<std::string> make_secret_id(std::string_view prefix, std::size_t bytes);

// True for 1..128 characters of [A-Za-z0-9._-]: what we accept as a caller-chosen id.
bool is_safe_id(std::string_view id, std::size_t max_length = 128);

}  // namespace harness::core
