#include "harness/sandbox/container_body.hpp"

#include <fmt/format.h>

#include "harness/sandbox/process_label.hpp"

namespace harness::sandbox {

nlohmann::json hardened_container_body(const sandbox_config& config, const std::string& task_id,
                                       const std::vector<std::string>& entrypoint, const std::string& call_socket) {
  using nlohmann::json;
  const std::int64_t memory = config.memory_mb * 1024 * 1024;
  // noexec: nothing written at run time can be executed; nosuid/nodev as usual.
  auto tmpfs = [](std::int64_t mb, bool owned) {
    return fmt::format("rw,noexec,nosuid,nodev,size={}m{}", mb, owned ? ",uid=1000,gid=1000,mode=0700" : ",mode=1777");
  };
  const bool no_network = config.network == "none";

  json host = {
      {"NetworkMode", config.network},
      {"ReadonlyRootfs", true},
      {"CapDrop", json::array({"ALL"})},
      {"CapAdd", json::array()},
      {"SecurityOpt", json::array({"no-new-privileges"})},
      {"Privileged", false},
      {"PidsLimit", config.pids_limit},
      {"Memory", memory},
      {"MemorySwap", memory},  // equal: no swap on top of the memory limit
      {"NanoCpus", static_cast<std::int64_t>(config.cpus * 1e9)},
      {"Tmpfs",
       {{"/tmp", tmpfs(config.tmp_mb, false)},
        {"/workspace", tmpfs(config.workspace_mb, true)},
        {"/skills", tmpfs(config.skills_mb, true)}}},
      {"Init", true},  // reaps zombies and forwards signals; the code never runs as PID 1
      {"IpcMode", "private"},
      {"ShmSize", 16 * 1024 * 1024},
      {"LogConfig", {{"Type", "json-file"}, {"Config", {{"max-size", "1m"}, {"max-file", "1"}}}}},
      {"Ulimits", json::array({{{"Name", "nofile"}, {"Soft", config.nofile_limit}, {"Hard", config.nofile_limit}},
                               {{"Name", "core"}, {"Soft", 0}, {"Hard", 0}}})},
      {"RestartPolicy", {{"Name", "no"}}},
      {"AutoRemove", false},  // we remove it ourselves after reading the exit state
      {"Binds", nullptr},
      {"Mounts", json::array()},
  };
  if (!config.runtime.empty()) host["Runtime"] = config.runtime;
  // The socket file alone, not its folder: the sandbox sees no other host path.
  if (!call_socket.empty()) host["Binds"] = json::array({call_socket + ":" + call_socket_mount});

  json body{
      {"Image", config.image},
      {"User", "1000:1000"},
      {"Hostname", "sandbox"},
      {"WorkingDir", "/workspace"},
      // Only what the runtime needs; never the server's environment (LLM keys, MCP server env).
      {"Env", json::array({"NODE_ENV=production", "HOME=/workspace"})},
      {"AttachStdin", true},
      {"AttachStdout", true},
      {"AttachStderr", true},
      {"OpenStdin", true},
      {"StdinOnce", true},
      {"Tty", false},
      {"NetworkDisabled", no_network},
      {"Labels", {{owner_label, config.owner}, {task_label, task_id}, {process_label, this_process()}}},
      {"HostConfig", host},
  };
  if (!entrypoint.empty()) body["Entrypoint"] = entrypoint;
  return body;
}

}  // namespace harness::sandbox
