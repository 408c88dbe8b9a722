// Which OCI runtime the sandboxes run under, and whether the engine has it.
// SANDBOX_RUNTIME names a runtime registered with dockerd (daemon.json
// "runtimes"); one that is not registered fails every container create, so
// the server refuses to start with it (exit code 2) and /health says why.
#pragma once

#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/docker/engine_client.hpp"

namespace harness::sandbox {

struct runtime_check {
  std::string name;                // what sandboxes run under: SANDBOX_RUNTIME, or the engine's default
  bool registered = false;         // the engine lists it
  std::vector<std::string> known;  // every runtime the engine lists
  nlohmann::json detail;           // for /health: name, registered, default, gvisor, platform, args
};

// Reads the engine's runtimes for the configured name ("" = the engine's default).
runtime_check check_runtime(const docker::engine_info& info, const std::string& configured);

// The start-up failure for a runtime the engine does not list, naming the fix.
error runtime_missing(const runtime_check& check);

// Asks the engine (GET /info); its error when it does not answer.
boost::asio::awaitable<result<runtime_check>> inspect_runtime(docker::engine_client& engine, std::string configured);

}  // namespace harness::sandbox
