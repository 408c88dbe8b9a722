// Logging on top of spdlog. Two formats: readable text lines (default) and one
// JSON object per line (LOG_FORMAT=json). Lines that belong to an HTTP request
// carry its request id: pass it as the first argument of the *_for functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <spdlog/common.h>

namespace harness::core {

enum class log_format { text, json };

struct log_config {
  log_format format = log_format::text;
  spdlog::level::level_enum level = spdlog::level::info;
};

// Installs the default logger (stderr). Call once at start-up; safe to call again.
void init_logging(const log_config& config);

// Writes one line. request_id may be empty (a line not tied to a request).
void log_line(spdlog::level::level_enum level, std::string_view request_id, std::string_view message);

// Whether a line of this level is written at all. The functions below ask
// first, so a debug line on a hot path costs no formatting when debug is off.
bool log_enabled(spdlog::level::level_enum level) noexcept;

template <class... Args>
void log_for(spdlog::level::level_enum level, std::string_view request_id, fmt::format_string<Args...> f,
             Args&&... args) {
  if (log_enabled(level)) log_line(level, request_id, fmt::format(f, std::forward<Args>(args)...));
}

template <class... Args>
void log_info(fmt::format_string<Args...> f, Args&&... args) {
  log_for(spdlog::level::info, {}, f, std::forward<Args>(args)...);
}
template <class... Args>
void log_warn(fmt::format_string<Args...> f, Args&&... args) {
  log_for(spdlog::level::warn, {}, f, std::forward<Args>(args)...);
}
template <class... Args>
void log_error(fmt::format_string<Args...> f, Args&&... args) {
  log_for(spdlog::level::err, {}, f, std::forward<Args>(args)...);
}
template <class... Args>
void log_debug(fmt::format_string<Args...> f, Args&&... args) {
  log_for(spdlog::level::debug, {}, f, std::forward<Args>(args)...);
}

}  // namespace harness::core
