#include "harness/core/spawn_logged.hpp"

#include "harness/core/logging.hpp"

namespace harness::core {

void log_spawn_exception(std::string_view what, std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    log_error("{} failed: {}", what, e.what());
  } catch (...) {
    log_error("{} failed: an exception that is not a std::exception", what);
  }
}

void log_spawn_error(std::string_view what, const error& problem) {
  log_warn("{} failed: {} [{}]", what, problem.describe(), problem.code.wire_name());
}

}  // namespace harness::core
