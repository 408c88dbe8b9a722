#include "harness/sandbox/runtime_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/sandbox/errors.hpp"

namespace harness::sandbox {
namespace {

// gVisor's runtime is runsc, whatever name the operator registered it under.
bool is_gvisor(const docker::runtime_info& runtime) {
  return runtime.name == "runsc" || runtime.path.ends_with("/runsc") || runtime.path == "runsc";
}

// The value of "--flag=value" or "--flag value" (gVisor also takes one dash).
std::string flag_value(const std::vector<std::string>& args, const std::string& flag) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const std::string& prefix : {"--" + flag, "-" + flag}) {
      if (args[i] == prefix && i + 1 < args.size()) return args[i + 1];
      if (args[i].starts_with(prefix + "=")) return args[i].substr(prefix.size() + 1);
    }
  }
  return {};
}

}  // namespace

runtime_check check_runtime(const docker::engine_info& info, const std::string& configured) {
  runtime_check out;
  out.name = configured.empty() ? info.default_runtime : configured;
  const docker::runtime_info* runtime = info.find_runtime(out.name);
  out.registered = runtime != nullptr;
  for (const auto& r : info.runtimes) out.known.push_back(r.name);
  out.detail = {{"name", out.name}, {"registered", out.registered}, {"engineDefault", configured.empty()}};
  if (!runtime) return out;
  const bool gvisor = is_gvisor(*runtime);
  out.detail["gvisor"] = gvisor;
  if (!runtime->path.empty()) out.detail["path"] = runtime->path;
  out.detail["args"] = runtime->args;
  if (gvisor) {
    // Unset, gVisor picks its own default: ptrace up to the 2023 releases
    // (Debian 12's runsc), systrap after.
    const std::string platform = flag_value(runtime->args, "platform");
    out.detail["platform"] = platform.empty() ? "default" : platform;
    const std::string host_uds = flag_value(runtime->args, "host-uds");
    out.detail["hostUds"] = host_uds.empty() ? "none" : host_uds;
  }
  return out;
}

error runtime_missing(const runtime_check& check) {
  const std::string fix =
      check.name == "runsc"
          ? "run ./scripts/run.sh as root with SANDBOX_RUNTIME=runsc (it installs Debian's runsc and registers it), "
            "or add runsc to the \"runtimes\" of /etc/docker/daemon.json with runtimeArgs [\"--host-uds=open\"] and "
            "send dockerd SIGHUP (docs/SECURITY.md, gVisor)"
          : "register it in the \"runtimes\" of /etc/docker/daemon.json and send dockerd SIGHUP, or unset "
            "SANDBOX_RUNTIME to use the engine's default";
  return make_error(
      errc::runtime_missing,
      fmt::format("SANDBOX_RUNTIME={} is not registered with the Docker engine (it has: {})", check.name,
                  check.known.empty() ? std::string("none") : fmt::format("{}", fmt::join(check.known, ", "))),
      fix);
}

boost::asio::awaitable<result<runtime_check>> inspect_runtime(docker::engine_client& engine, std::string configured) {
  auto info = co_await engine.info();
  if (!info) co_return info.error();
  co_return check_runtime(*info, configured);
}

}  // namespace harness::sandbox
