// Routes the default spdlog logger to a ring buffer for the holder's
// lifetime (at debug level), so a test can read what was logged.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

namespace harness::testing {

class captured_log {
 public:
  explicit captured_log(std::size_t lines = 64)
      : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(lines)), previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("test", sink_);
    logger->set_pattern("%l %v");
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
  }
  ~captured_log() { spdlog::set_default_logger(previous_); }
  captured_log(const captured_log&) = delete;
  captured_log& operator=(const captured_log&) = delete;

  std::vector<std::string> lines() const { return sink_->last_formatted(); }
  bool contains(const std::string& part) const {
    for (const auto& line : lines()) {
      if (line.find(part) != std::string::npos) return true;
    }
    return false;
  }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace harness::testing
