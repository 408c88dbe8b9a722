#include "harness/docker/engine_endpoint.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace harness::docker {
namespace {

TEST(EngineEndpoint, EmptyMeansTheDefaultSocket) {
  auto e = parse_engine_endpoint("", "", "");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, engine_endpoint::transport::unix_socket);
  EXPECT_EQ(e->socket_path, "/var/run/docker.sock");
}

TEST(EngineEndpoint, UnixSocketPath) {
  auto e = parse_engine_endpoint("unix:///run/user/1000/docker.sock", "", "");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->socket_path, "/run/user/1000/docker.sock");
  EXPECT_EQ(e->describe(), "unix:///run/user/1000/docker.sock");
}

TEST(EngineEndpoint, TcpHostAndPort) {
  auto e = parse_engine_endpoint("tcp://10.0.0.5:2375", "", "");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, engine_endpoint::transport::tcp);
  EXPECT_EQ(e->host, "10.0.0.5");
  EXPECT_EQ(e->port, 2375);
  EXPECT_FALSE(e->tls);
}

TEST(EngineEndpoint, TcpIpv6AndDefaultPort) {
  auto e = parse_engine_endpoint("tcp://[::1]", "", "");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "::1");
  EXPECT_EQ(e->port, 2375);
}

TEST(EngineEndpoint, TlsVerifyUsesTheCertFolder) {
  auto dir = std::filesystem::temp_directory_path() / "harness-docker-certs-test";
  std::filesystem::create_directories(dir);
  for (auto name : {"ca.pem", "cert.pem", "key.pem"}) std::ofstream(dir / name) << "x";
  auto e = parse_engine_endpoint("tcp://docker.internal:2376", "1", dir.string());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_TRUE(e->tls);
  EXPECT_TRUE(e->verify_peer);
  EXPECT_EQ(e->ca_file, (dir / "ca.pem").string());
  EXPECT_EQ(e->key_file, (dir / "key.pem").string());
  std::filesystem::remove_all(dir);
}

TEST(EngineEndpoint, TlsVerifyWithoutCaIsAnError) {
  auto e = parse_engine_endpoint("tcp://docker.internal:2376", "1", "/nonexistent-cert-dir");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, "invalid_setting");
  EXPECT_NE(e.error().hint.find("DOCKER_CERT_PATH"), std::string::npos);
}

TEST(EngineEndpoint, RejectsOtherSchemesAndBadPorts) {
  EXPECT_FALSE(parse_engine_endpoint("ssh://me@host", "", ""));
  EXPECT_FALSE(parse_engine_endpoint("tcp://host:99999", "", ""));
  EXPECT_FALSE(parse_engine_endpoint("tcp://:2375", "", ""));
  EXPECT_FALSE(parse_engine_endpoint("unix://relative.sock", "", ""));
}

}  // namespace
}  // namespace harness::docker
