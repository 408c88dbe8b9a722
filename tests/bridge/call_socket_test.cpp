// The call socket: who gets bound (only the connection with the session's
// token), what a timeout looks like, and how a runtime is linked to it.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <filesystem>

#include "bridge/fake_channel.hpp"
#include "bridge/fake_tools.hpp"
#include "harness/bridge/call_socket.hpp"
#include "harness/bridge/errors.hpp"
#include "harness/bridge/runtime_session.hpp"
#include "support/run_sync.hpp"

namespace harness::bridge {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A blocking client, as a runtime (or an intruder) would connect.
int connect_to(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << std::strerror(errno);
  return fd;
}

void send_text(int fd, const std::string& text) {
  ASSERT_EQ(::write(fd, text.data(), text.size()), ssize_t(text.size()));
}

std::string hello(const std::string& token) {
  return json{{"type", "hello"}, {"token", token}}.dump() + "\n";
}

class CallSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("csock-" + std::to_string(getpid()));
    auto made = call_socket::listen(io.get_executor(), core::real_clock(), dir.string(), "/run/harness-calls.sock");
    ASSERT_TRUE(made) << made.error().describe();
    socket = std::move(*made);
  }
  void TearDown() override {
    for (int fd : clients) ::close(fd);
    socket.reset();
    fs::remove_all(dir);
  }
  template <class T>
  T run(boost::asio::awaitable<T> work) {
    return harness::testing::run_sync(io, std::move(work));
  }
  int client() { return client_of(socket->path()); }
  int client_of(const std::string& path) { return clients.emplace_back(connect_to(path)); }

  boost::asio::io_context io;
  fs::path dir;
  std::unique_ptr<call_socket> socket;
  std::vector<int> clients;
};

TEST_F(CallSocketTest, ARandomNameAReachableFileAndAFreshToken) {
  EXPECT_EQ(fs::path(socket->path()).parent_path(), dir);
  EXPECT_EQ(socket->runtime_path(), "/run/harness-calls.sock");
  EXPECT_EQ(socket->token().size(), 32u);
  struct stat st {};
  ASSERT_EQ(::stat(socket->path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0666u);  // the sandbox's user connects; the token keeps others out
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0711u);  // others cannot list the names
  auto other = call_socket::listen(io.get_executor(), core::real_clock(), dir.string(), "");
  ASSERT_TRUE(other);
  EXPECT_NE((*other)->path(), socket->path());
  EXPECT_NE((*other)->token(), socket->token());
  EXPECT_EQ((*other)->runtime_path(), (*other)->path());  // a runtime on this host
}

TEST_F(CallSocketTest, OnlyTheConnectionWithTheTokenIsBound) {
  int intruder = client();
  send_text(intruder, hello(std::string(32, '0')));
  int garbage = client();
  send_text(garbage, "GET / HTTP/1.1\n");
  int runtime = client();
  // What the runtime sends right after hello must not be lost.
  send_text(runtime, hello(socket->token()) + R"({"type":"call","id":1})" + "\n");
  auto channel = run(socket->accept(2s, 1 << 20));
  ASSERT_TRUE(channel) << channel.error().describe();
  auto line = run((*channel)->read_line());
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, R"({"type":"call","id":1})");
  // The others were hung up on, and the file is gone: nobody else connects.
  char byte;
  EXPECT_EQ(::read(intruder, &byte, 1), 0);
  EXPECT_EQ(::read(garbage, &byte, 1), 0);
  EXPECT_FALSE(fs::exists(socket->path()));
  // Replies reach the runtime.
  ASSERT_TRUE(run((*channel)->write_line(R"({"type":"reply","id":1})")));
  char buffer[64] = {};
  ASSERT_GT(::read(runtime, buffer, sizeof(buffer) - 1), 0);
  EXPECT_EQ(std::string(buffer), std::string(R"({"type":"reply","id":1})") + "\n");
}

TEST_F(CallSocketTest, NoRuntimeIsATimeoutAndASilentOneToo) {
  auto nobody = run(socket->accept(50ms, 1024));
  ASSERT_FALSE(nobody);
  EXPECT_EQ(nobody.error().code, harness::bridge::errc::call_socket_timeout);

  auto again = call_socket::listen(io.get_executor(), core::real_clock(), dir.string(), "");
  ASSERT_TRUE(again);
  clients.push_back(connect_to((*again)->path()));  // connects, never says hello
  auto silent = run((*again)->accept(50ms, 1024));
  ASSERT_FALSE(silent);
  EXPECT_EQ(silent.error().code, harness::bridge::errc::call_socket_timeout);
}

TEST(SameToken, ComparesEveryByteAndTheLength) {
  EXPECT_TRUE(same_token("abc", "abc"));
  EXPECT_FALSE(same_token("abc", "abd"));
  EXPECT_FALSE(same_token("abc", "abcd"));
  EXPECT_FALSE(same_token("", "a"));
  EXPECT_TRUE(same_token("", ""));
}

TEST(CallSocketListen, AFolderThatCannotBeMadeIsAClearError) {
  boost::asio::io_context io;
  auto made = call_socket::listen(io.get_executor(), core::real_clock(), "/proc/no-such-folder/sockets", "");
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().code, harness::bridge::errc::call_socket_failed);
  EXPECT_NE(made.error().hint.find("SANDBOX_CALL_SOCKET_DIR"), std::string::npos);
}

// link_runtime: the `link` frame goes on stdio, the runtime's hello comes on
// the socket, and the protocol continues there.
class LinkTest : public CallSocketTest {
 protected:
  testing::fake_channel stdio{io.get_executor()};
};

TEST_F(LinkTest, SendsLinkOnStdioAndHandsBackTheSocketChannel) {
  std::string path = socket->path();
  stdio.respond = [&](const std::string& line) {
    // The scripted runtime does what runtime.js does on `link`.
    auto frame = json::parse(line);
    EXPECT_EQ(frame["type"], "link");
    EXPECT_EQ(frame["socket"], "/run/harness-calls.sock");
    int fd = client_of(path);
    send_text(fd, hello(frame["token"]) + R"({"type":"done","exec":"x1"})"
                                          "\n");
  };
  auto linked = run(link_runtime(stdio, *socket, 2s));
  ASSERT_TRUE(linked) << linked.error().describe();
  auto line = run((*linked)->read_line());
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, R"({"type":"done","exec":"x1"})");
  EXPECT_EQ(stdio.written.size(), 1u);
}

TEST_F(LinkTest, ARuntimeThatNeverConnectsIsATimeout) {
  auto linked = run(link_runtime(stdio, *socket, 50ms));
  ASSERT_FALSE(linked);
  EXPECT_EQ(linked.error().code, harness::bridge::errc::call_socket_timeout);
  EXPECT_EQ(json::parse(stdio.written.at(0))["type"], "link");
}

}  // namespace
}  // namespace harness::bridge
