// Random identifiers for requests, tasks, sessions and containers.
#pragma once

#include <string>
#include <string_view>

namespace harness::core {

// prefix + 24 lowercase hex characters: 96 bits from the kernel's CSPRNG
// (getrandom), so no id tells anything about another; e.g. make_id("task_").
// Task, session, approval, conversation and request ids all come from here.
std::string make_id(std::string_view prefix);

// True for 1..128 characters of [A-Za-z0-9._-]: what we accept as a caller-chosen id.
bool is_safe_id(std::string_view id, std::size_t max_length = 128);

}  // namespace harness::core
