// An in-memory fake of the Docker engine, served over a real unix socket in a
// temp folder, so engine_client's real HTTP, hijack and demux code runs
// against it. Containers are records; an attached "container" echoes its stdin
// (read to end of file) back on stdout, then writes "bye\n" on stderr, in frames
// cut into single bytes when split_frames is set.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>

namespace harness::docker::testing {

// One frame of Docker's multiplexed attach stream: an 8-byte header (stream
// id, three zero bytes, big-endian length) and the payload.
std::string attach_frame(std::uint8_t stream, const std::string& payload);

class fake_engine {
 public:
  fake_engine();
  ~fake_engine();

  std::string socket_path() const { return socket_path_; }

  // Knobs, set before the client calls.
  std::string api_version = "1.41";
  std::string min_api_version = "1.12";
  std::set<std::string> images = {"mcp-harness-sandbox:latest"};
  bool split_frames = false;
  // GET /info: the runtimes (name -> runtimeArgs) and the default one.
  std::map<std::string, std::vector<std::string>> runtimes = {{"runc", {}}};
  std::string default_runtime = "runc";
  // Answers every request whose target contains the key with this status and body.
  std::map<std::string, std::pair<unsigned, std::string>> canned;

  // What the client sent: "METHOD target" lines, and the last create body.
  std::vector<std::string> requests() const;
  std::string last_create_body() const;
  std::size_t container_count() const;

 private:
  struct container {
    std::string id;
    std::string labels_json;
    bool started = false;
    bool running = false;
    std::int64_t exit_code = 0;
  };
  void serve();
  void handle(boost::asio::local::stream_protocol::socket socket);

  std::string dir_, socket_path_;
  boost::asio::io_context io_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::thread thread_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> requests_;
  std::string last_create_body_;
  std::map<std::string, container> containers_;
  int next_id_ = 1;
};

}  // namespace harness::docker::testing
