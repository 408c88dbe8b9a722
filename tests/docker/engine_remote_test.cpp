// The tcp and TLS transports against the real engine: socat listens on
// loopback and forwards to the engine's unix socket, with (for TLS) a CA, a
// server certificate and a client certificate made by openssl for this test.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <boost/asio/ip/tcp.hpp>

#include "docker/attachable_container.hpp"
#include "support/run_sync.hpp"
#include "harness/docker/engine_client.hpp"

namespace harness::docker {
namespace {

namespace fs = std::filesystem;
using harness::testing::run_sync;

class RemoteEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v socat >/dev/null && command -v openssl >/dev/null") != 0) {
      GTEST_SKIP() << "socat or openssl missing (scripts/setup.d/30-docker.sh installs socat)";
    }
    dir = fs::temp_directory_path() / ("harness-remote-engine-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // A port the kernel says is free right now (socat cannot bind port 0 and tell us).
    boost::asio::ip::tcp::acceptor probe(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    port = probe.local_endpoint().port();
  }
  void TearDown() override {
    // Containers a failed assertion left behind, found by label on the local engine.
    docker_config local;
    auto left = run_sync(io, create_engine_client(io.get_executor(), local)->list_containers(label(), true));
    if (left) {
      for (auto& c : *left)
        (void)run_sync(io, create_engine_client(io.get_executor(), local)->remove_container(c.id, true));
    }
    if (proxy > 0) {
      ::kill(proxy, SIGTERM);
      ::waitpid(proxy, nullptr, 0);
    }
    if (!dir.empty()) fs::remove_all(dir);
  }

  void make_certs() {
    std::string d = dir.string();
    std::string script =
        "cd " + d +
        " && exec >openssl.log 2>&1 && "
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=test-ca -keyout ca-key.pem -out ca.pem && "
        "openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server-key.pem -out server.csr && "
        "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.ext && "
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 1 -extfile san.ext -out "
        "server.pem && "
        "openssl req -newkey rsa:2048 -nodes -subj /CN=client -keyout key.pem -out client.csr && "
        "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 1 -out cert.pem";
    ASSERT_EQ(std::system(script.c_str()), 0) << "openssl failed, see " << d << "/openssl.log";
  }

  void start_proxy(const std::string& listen) {
    proxy = ::fork();
    if (proxy == 0) {
      std::string log = (dir / "socat.log").string();
      std::freopen(log.c_str(), "w", stderr);
      ::execlp("socat", "socat", listen.c_str(), "UNIX-CONNECT:/var/run/docker.sock", static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    ASSERT_GT(proxy, 0);
  }

  // Retries ping until the proxy listens (it starts asynchronously).
  std::shared_ptr<engine_client> connect(const engine_endpoint& endpoint) {
    docker_config config;
    config.endpoint = endpoint;
    config.request_timeout = std::chrono::seconds(10);
    auto client = create_engine_client(io.get_executor(), config);
    for (int i = 0; i < 50; ++i) {
      if (run_sync(io, client->ping())) return client;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    auto last = run_sync(io, client->ping());
    ADD_FAILURE() << "no answer through the proxy: " << (last ? "" : last.error().describe());
    return client;
  }

  // version, then a container that echoes stdin through the attach stream.
  void exercise(engine_client& client) {
    auto v = run_sync(io, client.version());
    ASSERT_TRUE(v) << v.error().describe();
    auto body = testing::attachable_container(label().substr(label().find('=') + 1));
    auto id = run_sync(io, client.create_container(body, ""));
    ASSERT_TRUE(id) << id.error().describe();
    auto stream = run_sync(io, client.attach_container(*id));
    ASSERT_TRUE(stream) << stream.error().describe();
    ASSERT_TRUE(run_sync(io, client.start_container(*id)));
    ASSERT_TRUE(run_sync(io, (*stream)->write_stdin("console.log('via ' + 'proxy')", std::chrono::seconds(10))));
    ASSERT_TRUE((*stream)->close_stdin());
    std::string out;
    for (;;) {
      auto chunk = run_sync(io, (*stream)->read(std::chrono::seconds(30)));
      ASSERT_TRUE(chunk) << chunk.error().describe();
      if (!*chunk) break;
      out += (*chunk)->data;
    }
    EXPECT_EQ(out, "via proxy\n");
    EXPECT_TRUE(run_sync(io, client.remove_container(*id, true)));
  }

  // Unique to this process: ctest runs tests in parallel, and a teardown must
  // only remove its own test's containers.
  static std::string label() { return "org.mcp-harness.test=remote-" + std::to_string(::getpid()); }

  boost::asio::io_context io;
  fs::path dir;
  int port = 0;
  pid_t proxy = -1;
};

TEST_F(RemoteEngine, PlainTcp) {
  start_proxy("TCP-LISTEN:" + std::to_string(port) + ",bind=127.0.0.1,reuseaddr,fork");
  auto endpoint = parse_engine_endpoint("tcp://127.0.0.1:" + std::to_string(port), "", "");
  ASSERT_TRUE(endpoint);
  ASSERT_FALSE(endpoint->tls);
  auto client = connect(*endpoint);
  exercise(*client);
}

TEST_F(RemoteEngine, TlsWithClientCertificates) {
  make_certs();
  std::string d = dir.string();
  // verify=1: the proxy, like dockerd with --tlsverify, refuses clients without a certificate from the CA.
  start_proxy("OPENSSL-LISTEN:" + std::to_string(port) + ",bind=127.0.0.1,reuseaddr,fork,cert=" + d +
              "/server.pem,key=" + d + "/server-key.pem,cafile=" + d + "/ca.pem,verify=1");
  auto endpoint = parse_engine_endpoint("tcp://localhost:" + std::to_string(port), "1", d);
  ASSERT_TRUE(endpoint) << endpoint.error().describe();
  ASSERT_TRUE(endpoint->tls && endpoint->verify_peer);
  auto client = connect(*endpoint);
  exercise(*client);

  // A client that does not trust the server's CA must fail the handshake.
  fs::path other = dir / "other";
  fs::create_directories(other);
  ASSERT_EQ(std::system(("cd " + other.string() +
                         " && openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other -keyout key.pem "
                         "-out ca.pem >/dev/null 2>&1 && cp ca.pem cert.pem")
                            .c_str()),
            0);
  auto untrusting = parse_engine_endpoint("tcp://localhost:" + std::to_string(port), "1", other.string());
  ASSERT_TRUE(untrusting);
  docker_config config;
  config.endpoint = *untrusting;
  auto r = run_sync(io, create_engine_client(io.get_executor(), config)->ping());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "docker_unreachable");
  EXPECT_NE(r.error().message.find("TLS handshake failed"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace harness::docker
