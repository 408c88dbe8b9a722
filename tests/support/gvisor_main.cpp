// main() of the *_gvisor twins of the sandbox and execution suites: the same
// tests with every sandbox under gVisor. SANDBOX_RUNTIME=runsc is read by the
// sandbox fixture and inherited by every server the tests start; the set-up
// (scripts/setup.d/35-gvisor.sh) registered runsc with the engine.
// SandboxRun.CodeSeesTheKernelOfItsRuntime fails if sandboxes ran on runc.
#include <cstdlib>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::setenv("SANDBOX_RUNTIME", "runsc", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
