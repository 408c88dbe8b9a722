#include "engine_json.hpp"
#include "harness/core/json_parse.hpp"

#include <nlohmann/json.hpp>

#include "engine_errors.hpp"

namespace harness::docker::detail {
namespace {

using json = nlohmann::json;

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

std::int64_t num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

std::map<std::string, std::string> labels_of(const json& j) {
  std::map<std::string, std::string> out;
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (v.is_string()) out[k] = v.get<std::string>();
    }
  }
  return out;
}

result<json> parse_object(const std::string& body, const char* what) {
  auto parsed = core::parse_json(body);
  if (!parsed.is_object()) return protocol_error(what, "not a JSON object");
  return parsed;
}

}  // namespace

result<version_info> parse_version(const std::string& body) {
  auto j = parse_object(body, "GET /version");
  if (!j) return j.error();
  version_info out;
  out.version = str(*j, "Version");
  out.api_version = str(*j, "ApiVersion");
  out.min_api_version = str(*j, "MinAPIVersion");
  out.os = str(*j, "Os");
  out.arch = str(*j, "Arch");
  out.kernel_version = str(*j, "KernelVersion");
  if (out.api_version.empty()) return protocol_error("GET /version", "no ApiVersion");
  return out;
}

result<engine_info> parse_info(const std::string& body) {
  auto j = parse_object(body, "GET /info");
  if (!j) return j.error();
  engine_info out;
  out.default_runtime = str(*j, "DefaultRuntime");
  if (out.default_runtime.empty()) out.default_runtime = "runc";
  auto runtimes = j->find("Runtimes");
  if (runtimes == j->end() || !runtimes->is_object()) return out;
  for (auto& [name, entry] : runtimes->items()) {
    runtime_info r{.name = name, .path = {}, .args = {}};
    if (entry.is_object()) {
      r.path = str(entry, "path");
      if (auto args = entry.find("runtimeArgs"); args != entry.end() && args->is_array()) {
        for (auto& a : *args) {
          if (a.is_string()) r.args.push_back(a.get<std::string>());
        }
      }
    }
    out.runtimes.push_back(std::move(r));
  }
  return out;
}

result<image_info> parse_image(const std::string& body) {
  auto j = parse_object(body, "image inspect");
  if (!j) return j.error();
  image_info out;
  out.id = str(*j, "Id");
  out.size = num(*j, "Size");
  if (auto tags = j->find("RepoTags"); tags != j->end() && tags->is_array()) {
    for (auto& t : *tags) {
      if (t.is_string()) out.repo_tags.push_back(t.get<std::string>());
    }
  }
  if (auto config = j->find("Config"); config != j->end() && config->is_object() && config->contains("Labels")) {
    out.labels = labels_of((*config)["Labels"]);
  }
  if (out.id.empty()) return protocol_error("image inspect", "no Id");
  return out;
}

result<container_state> parse_container_state(const std::string& body) {
  auto j = parse_object(body, "container inspect");
  if (!j) return j.error();
  container_state out;
  out.id = str(*j, "Id");
  auto state = j->find("State");
  if (out.id.empty() || state == j->end() || !state->is_object())
    return protocol_error("container inspect", "no State");
  out.status = str(*state, "Status");
  out.running = state->value("Running", false);
  out.oom_killed = state->value("OOMKilled", false);
  out.exit_code = num(*state, "ExitCode");
  out.pid = num(*state, "Pid");
  out.error = str(*state, "Error");
  if (auto config = j->find("Config"); config != j->end() && config->is_object() && config->contains("Labels")) {
    out.labels = labels_of((*config)["Labels"]);
  }
  return out;
}

result<std::vector<container_summary>> parse_container_list(const std::string& body) {
  auto j = core::parse_json(body);
  if (!j.is_array()) return protocol_error("container list", "not a JSON array");
  std::vector<container_summary> out;
  for (auto& item : j) {
    if (!item.is_object()) continue;
    container_summary c;
    c.id = str(item, "Id");
    c.image = str(item, "Image");
    c.state = str(item, "State");
    c.created = num(item, "Created");
    if (auto names = item.find("Names"); names != item.end() && names->is_array()) {
      for (auto& n : *names) {
        if (n.is_string()) c.names.push_back(n.get<std::string>());
      }
    }
    if (item.contains("Labels")) c.labels = labels_of(item["Labels"]);
    out.push_back(std::move(c));
  }
  return out;
}

result<wait_result> parse_wait(const std::string& body) {
  auto j = parse_object(body, "container wait");
  if (!j) return j.error();
  wait_result out;
  out.status_code = num(*j, "StatusCode");
  if (auto err = j->find("Error"); err != j->end() && err->is_object()) out.error = str(*err, "Message");
  return out;
}

result<pids_usage> parse_pids(const std::string& stats_body) {
  auto j = parse_object(stats_body, "container stats");
  if (!j) return j.error();
  pids_usage out;
  if (auto pids = j->find("pids_stats"); pids != j->end() && pids->is_object()) {
    out.current = num(*pids, "current");
    out.limit = num(*pids, "limit");
  }
  return out;
}

}  // namespace harness::docker::detail
