#include "harness/sandbox/sandbox_config.hpp"

#include "harness/core/ids.hpp"

#include <charconv>

#include <fmt/format.h>

namespace harness::sandbox {

std::vector<core::setting_spec> sandbox_setting_specs() {
  return {
      {"SANDBOX_IMAGE", "mcp-harness-sandbox:latest",
       "Docker image the sandboxes run (built by sandbox/build-image.sh)"},
      {"SANDBOX_TIMEOUT_MS", "30000", "a code block is killed after this many milliseconds"},
      {"SANDBOX_MEMORY_MB", "256", "memory limit of a sandbox container (no swap)"},
      {"SANDBOX_CPU_QUOTA", "1", "CPUs a sandbox container may use (e.g. 0.5)"},
      {"SANDBOX_PIDS_LIMIT", "128", "most processes and threads in one sandbox container"},
      {"SANDBOX_TMP_MB", "64", "size cap of the /tmp tmpfs in a sandbox"},
      {"SANDBOX_WORKSPACE_MB", "64", "size cap of the /workspace tmpfs in a sandbox"},
      {"SANDBOX_SKILLS_MB", "16", "size cap of the /skills tmpfs in a sandbox"},
      {"SANDBOX_NOFILE_LIMIT", "1024", "open files per sandbox process (ulimit -n)"},
      {"SANDBOX_RUNTIME", "", "OCI runtime for sandboxes, e.g. runsc (gVisor); empty: the engine's default"},
      {"SANDBOX_OWNER", "mcp-harness",
       "value of the label that marks our containers; servers sharing one engine need different values, since "
       "each removes unowned containers with its own value at start-up"},
      {"SANDBOX_NETWORK", "none",
       "Docker network of sandboxes; anything but none grants network access (see docs/SECURITY.md)"},
  };
}

result<sandbox_config> load_sandbox_config(const core::settings& settings) {
  sandbox_config c;
  c.image = settings.get("SANDBOX_IMAGE");
  if (c.image.empty()) {
    return make_error("invalid_setting", "SANDBOX_IMAGE is empty",
                      "name the sandbox image, e.g. mcp-harness-sandbox:latest");
  }
  auto timeout = settings.get_ms("SANDBOX_TIMEOUT_MS", 100, 3'600'000);
  if (!timeout) return timeout.error();
  c.timeout = *timeout;
  struct int_setting {
    const char* name;
    std::int64_t* field;
    std::int64_t min, max;
  };
  for (auto [name, field, min, max] : {int_setting{"SANDBOX_MEMORY_MB", &c.memory_mb, 32, 1 << 20},
                                       int_setting{"SANDBOX_PIDS_LIMIT", &c.pids_limit, 16, 1 << 20},
                                       int_setting{"SANDBOX_TMP_MB", &c.tmp_mb, 1, 1 << 20},
                                       int_setting{"SANDBOX_WORKSPACE_MB", &c.workspace_mb, 1, 1 << 20},
                                       int_setting{"SANDBOX_SKILLS_MB", &c.skills_mb, 1, 1 << 20},
                                       int_setting{"SANDBOX_NOFILE_LIMIT", &c.nofile_limit, 64, 1 << 20}}) {
    auto value = settings.get_int(name, min, max);
    if (!value) return value.error();
    *field = *value;
  }
  const std::string& cpu = settings.get("SANDBOX_CPU_QUOTA");
  auto [ptr, ec] = std::from_chars(cpu.data(), cpu.data() + cpu.size(), c.cpus);
  if (cpu.empty() || ec != std::errc{} || ptr != cpu.data() + cpu.size() || c.cpus < 0.01 || c.cpus > 1024) {
    return make_error("invalid_setting",
                      fmt::format("invalid SANDBOX_CPU_QUOTA: '{}' is not a CPU count from 0.01 to 1024", cpu),
                      "set SANDBOX_CPU_QUOTA to the CPUs a sandbox may use, e.g. 0.5");
  }
  c.runtime = settings.get("SANDBOX_RUNTIME");
  c.network = settings.get("SANDBOX_NETWORK");
  for (const std::string* value : {&c.runtime, &c.network}) {
    for (char ch : *value) {
      if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.')) {
        return make_error("invalid_setting", fmt::format("invalid SANDBOX_RUNTIME/SANDBOX_NETWORK value '{}'", *value),
                          "use a plain runtime or network name");
      }
    }
  }
  if (c.network.empty()) c.network = "none";
  c.owner = settings.get("SANDBOX_OWNER");
  if (!core::is_safe_id(c.owner, 64)) {
    return make_error("invalid_setting", fmt::format("invalid SANDBOX_OWNER: '{}'", c.owner),
                      "use 1-64 letters, digits, '.', '_' or '-'");
  }
  return c;
}

}  // namespace harness::sandbox
