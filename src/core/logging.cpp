#include "harness/core/logging.hpp"

#include <fmt/chrono.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>

namespace harness::core {
namespace {

std::atomic<log_format> current_format{log_format::text};

std::string iso_timestamp() {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03}Z", fmt::gmtime(system_clock::to_time_t(now)), ms);
}

bool is_control(char c) {
  auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

// One line whatever the text holds: a CR or LF from a request path, a header
// or a tool's output would otherwise start a forged line of the log. Control
// bytes become \n, \r, \t or \xNN; everything else stays as it is.
std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (!is_control(c)) {
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

}  // namespace

void init_logging(const log_config& config) {
  current_format = config.format;
  auto logger = std::make_shared<spdlog::logger>("harness", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  // The JSON line is built whole in log_line, so the pattern is the bare message.
  logger->set_pattern(config.format == log_format::json ? "%v" : "%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  logger->set_level(config.level);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

bool log_enabled(spdlog::level::level_enum level) noexcept {
  return spdlog::default_logger_raw()->should_log(level);
}

namespace {

void log_text(spdlog::logger* logger, spdlog::level::level_enum level, std::string_view request_id,
              std::string_view message) {
  if (request_id.empty()) {
    logger->log(level, "{}", message);
  } else {
    logger->log(level, "[{}] {}", request_id, message);
  }
}

}  // namespace

void log_line(spdlog::level::level_enum level, std::string_view request_id, std::string_view message) {
  auto logger = spdlog::default_logger_raw();
  if (!logger->should_log(level)) return;
  if (current_format.load(std::memory_order_relaxed) == log_format::json) {
    nlohmann::ordered_json line{
        {"ts", iso_timestamp()}, {"level", spdlog::level::to_string_view(level).data()}, {"msg", message}};
    if (!request_id.empty()) line["requestId"] = request_id;
    logger->log(level, "{}", line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } else if (std::any_of(message.begin(), message.end(), is_control)) {
    log_text(logger, level, request_id, escaped(message));
  } else {
    log_text(logger, level, request_id, message);
  }
}

}  // namespace harness::core
