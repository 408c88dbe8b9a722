#include "harness/docker/engine_endpoint.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

namespace harness::docker {
namespace {

error bad_host(const std::string& value, const std::string& why) {
  return make_error(core::errc::invalid_setting, fmt::format("invalid DOCKER_HOST '{}': {}", value, why),
                    "use unix:///var/run/docker.sock or tcp://host:port");
}

}  // namespace

std::string engine_endpoint::describe() const {
  if (kind == transport::unix_socket) return "unix://" + socket_path;
  return fmt::format("tcp://{}:{}{}", host, port, tls ? " (tls)" : "");
}

result<engine_endpoint> parse_engine_endpoint(const std::string& docker_host, const std::string& tls_verify,
                                              const std::string& cert_path) {
  engine_endpoint out;
  if (docker_host.empty()) return out;
  if (docker_host.rfind("unix://", 0) == 0) {
    out.socket_path = docker_host.substr(7);
    if (out.socket_path.empty() || out.socket_path.front() != '/')
      return bad_host(docker_host, "the socket path must be absolute");
    return out;
  }
  if (docker_host.rfind("tcp://", 0) != 0) {
    return bad_host(docker_host, "only unix:// and tcp:// are supported");
  }
  std::string rest = docker_host.substr(6);
  if (auto slash = rest.find('/'); slash != std::string::npos) rest.resize(slash);
  std::string port_text;
  if (!rest.empty() && rest.front() == '[') {  // [::1]:2376
    auto close = rest.find(']');
    if (close == std::string::npos) return bad_host(docker_host, "unterminated IPv6 address");
    out.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') port_text = rest.substr(close + 2);
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    out.host = rest.substr(0, colon);
    port_text = rest.substr(colon + 1);
  } else {
    out.host = rest;
  }
  if (out.host.empty()) return bad_host(docker_host, "the host is missing");

  out.kind = engine_endpoint::transport::tcp;
  out.verify_peer = !tls_verify.empty() && tls_verify != "0" && tls_verify != "false";
  std::string dir = cert_path;
  if (dir.empty() && out.verify_peer) {
    const char* home = std::getenv("HOME");
    dir = std::string(home ? home : "") + "/.docker";
  }
  namespace fs = std::filesystem;
  out.tls = out.verify_peer || (!dir.empty() && fs::exists(fs::path(dir) / "cert.pem"));
  if (out.tls) {
    for (auto [file, name] :
         {std::pair{&out.ca_file, "ca.pem"}, {&out.cert_file, "cert.pem"}, {&out.key_file, "key.pem"}}) {
      fs::path p = fs::path(dir) / name;
      if (fs::exists(p)) *file = p.string();
    }
    if (out.verify_peer && out.ca_file.empty()) {
      return make_error(core::errc::invalid_setting,
                        fmt::format("DOCKER_TLS_VERIFY is set but {}/ca.pem does not exist", dir),
                        "set DOCKER_CERT_PATH to the folder with ca.pem, cert.pem and key.pem");
    }
    if (out.cert_file.empty() != out.key_file.empty()) {
      return make_error(core::errc::invalid_setting, fmt::format("{} holds only one of cert.pem and key.pem", dir),
                        "a client certificate needs both files");
    }
  }
  std::uint16_t default_port = out.tls ? 2376 : 2375;
  if (port_text.empty()) {
    out.port = default_port;
  } else {
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc{} || ptr != port_text.data() + port_text.size() || value == 0 || value > 65535) {
      return bad_host(docker_host, "the port is not a number from 1 to 65535");
    }
    out.port = static_cast<std::uint16_t>(value);
  }
  return out;
}

std::vector<core::setting_spec> docker_setting_specs() {
  return {
      {"DOCKER_HOST", "",
       "Docker engine: unix:///path/to/docker.sock or tcp://host:port (empty: /var/run/docker.sock)"},
      {"DOCKER_TLS_VERIFY", "", "non-empty: talk TLS to a tcp:// engine and verify its certificate against ca.pem"},
      {"DOCKER_CERT_PATH", "", "folder with ca.pem, cert.pem, key.pem for a TLS engine (default ~/.docker)"},
      {"DOCKER_REQUEST_TIMEOUT_MS", "30000", "deadline for one Docker Engine API call"},
  };
}

result<docker_config> load_docker_config(const core::settings& settings) {
  docker_config config;
  auto endpoint = parse_engine_endpoint(settings.get("DOCKER_HOST"), settings.get("DOCKER_TLS_VERIFY"),
                                        settings.get("DOCKER_CERT_PATH"));
  if (!endpoint) return endpoint.error();
  config.endpoint = *endpoint;
  auto timeout = settings.get_ms("DOCKER_REQUEST_TIMEOUT_MS", 100, 600'000);
  if (!timeout) return timeout.error();
  config.request_timeout = *timeout;
  return config;
}

}  // namespace harness::docker
