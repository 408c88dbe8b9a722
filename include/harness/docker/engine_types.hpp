// Plain values the Docker Engine API client returns (a small, typed subset of
// the engine's JSON: only what the sandbox needs).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace harness::docker {

struct version_info {
  std::string version;          // engine version, "20.10.24+dfsg1"
  std::string api_version;      // highest API the engine speaks, "1.41"
  std::string min_api_version;  // lowest API the engine accepts
  std::string os, arch, kernel_version;
  // The API version this client uses with the engine (see engine_client::version()).
  std::string negotiated_api_version;
};

// One OCI runtime the engine can start containers with (GET /info, "Runtimes").
struct runtime_info {
  std::string name;               // "runc", "runsc"
  std::string path;               // the binary, "/usr/bin/runsc"
  std::vector<std::string> args;  // its runtimeArgs from daemon.json
};

// What GET /info says about runtimes (the rest of /info is not read).
struct engine_info {
  std::string default_runtime;         // "runc" unless the daemon says otherwise
  std::vector<runtime_info> runtimes;  // in the engine's order
  const runtime_info* find_runtime(const std::string& name) const {
    for (const auto& r : runtimes) {
      if (r.name == name) return &r;
    }
    return nullptr;
  }
};

struct image_info {
  std::string id;  // "sha256:..."
  std::vector<std::string> repo_tags;
  std::int64_t size = 0;
  std::map<std::string, std::string> labels;
};

struct container_summary {
  std::string id;
  std::vector<std::string> names;
  std::string image;
  std::string state;         // "created", "running", "exited", ...
  std::int64_t created = 0;  // seconds since the epoch
  std::map<std::string, std::string> labels;
};

struct container_state {
  std::string id;
  std::string status;  // "created", "running", "exited", "dead", ...
  bool running = false;
  bool oom_killed = false;
  std::int64_t exit_code = 0;
  std::int64_t pid = 0;
  std::string error;  // the engine's State.Error (e.g. a failed start), may be empty
  std::map<std::string, std::string> labels;
};

// Process count of a running container's cgroup (from the stats endpoint).
struct pids_usage {
  std::int64_t current = 0;
  std::int64_t limit = 0;  // 0 when the container has no pids limit
};

struct wait_result {
  std::int64_t status_code = 0;
  std::string error;  // the engine's Error.Message, may be empty
};

}  // namespace harness::docker
