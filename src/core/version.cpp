#include "harness/core/version.hpp"

namespace harness::core {
const char* version() {
  return HARNESS_VERSION;
}
}  // namespace harness::core
