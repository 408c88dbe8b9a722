// Which runtime the tests' sandboxes run under: SANDBOX_RUNTIME, as the
// server reads it ("runsc" in the *_gvisor twins, see gvisor_main.cpp).
// Tests whose expectation differs under gVisor ask under_gvisor() and say why.
#pragma once

#include <cstdlib>
#include <string>

namespace harness::testing {

inline std::string sandbox_runtime() {
  const char* runtime = std::getenv("SANDBOX_RUNTIME");
  return runtime ? runtime : "";
}

inline bool under_gvisor() {
  return sandbox_runtime() == "runsc";
}

}  // namespace harness::testing
