// Where the Docker engine lives and how to reach it, in the Docker CLI's own
// conventions: DOCKER_HOST (unix:///path or tcp://host:port), DOCKER_TLS_VERIFY
// and DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/error.hpp"
#include "harness/core/settings.hpp"

namespace harness::docker {

struct engine_endpoint {
  enum class transport { unix_socket, tcp };
  transport kind = transport::unix_socket;
  std::string socket_path = "/var/run/docker.sock";  // transport::unix_socket
  std::string host;                                  // transport::tcp
  std::uint16_t port = 2375;                         // transport::tcp
  // TLS for tcp: on when DOCKER_TLS_VERIFY is set or DOCKER_CERT_PATH holds a
  // client certificate. verify_peer checks the engine's certificate against ca.pem.
  bool tls = false;
  bool verify_peer = false;
  std::string ca_file, cert_file, key_file;

  // "unix:///var/run/docker.sock" or "tcp://host:port (tls)": for logs and errors.
  std::string describe() const;
};

// Parses DOCKER_HOST ("" means the default socket). tls_verify follows the CLI:
// any non-empty value but "0"/"false" turns TLS verification on. cert_path
// defaults to ~/.docker when TLS is on. Fails on a scheme other than unix:// and
// tcp:// (ssh:// is not supported), a missing port, or TLS files that do not exist.
result<engine_endpoint> parse_engine_endpoint(const std::string& docker_host, const std::string& tls_verify,
                                              const std::string& cert_path);

struct docker_config {
  engine_endpoint endpoint;
  // Deadline for one ordinary API call (not for wait/attach, which last as long as a container runs).
  std::chrono::milliseconds request_timeout{30'000};
};

// DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, DOCKER_REQUEST_TIMEOUT_MS.
std::vector<core::setting_spec> docker_setting_specs();
result<docker_config> load_docker_config(const core::settings& settings);

}  // namespace harness::docker
