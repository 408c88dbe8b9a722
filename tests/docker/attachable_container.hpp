// What the docker integration tests share: the sandbox image to use, and a
// create body for a plain container whose stdio can be attached.
#pragma once

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

namespace harness::docker::testing {

// SANDBOX_IMAGE, or the image sandbox/build-image.sh builds.
inline std::string sandbox_image() {
  const char* env = std::getenv("SANDBOX_IMAGE");
  return env && *env ? env : "mcp-harness-sandbox:latest";
}

// Not the hardened body (that is the sandbox's): just attachable stdio, no
// network, and the label org.mcp-harness.test=<test_label> for cleanup. It
// runs plain `node`, which reads a script from stdin to its end and runs it.
inline nlohmann::json attachable_container(const std::string& test_label) {
  return {{"Image", sandbox_image()},
          {"Entrypoint", {"node"}},
          {"OpenStdin", true},
          {"StdinOnce", true},
          {"AttachStdin", true},
          {"AttachStdout", true},
          {"AttachStderr", true},
          {"Tty", false},
          {"Labels", {{"org.mcp-harness.test", test_label}}},
          {"HostConfig", {{"NetworkMode", "none"}}}};
}

}  // namespace harness::docker::testing
