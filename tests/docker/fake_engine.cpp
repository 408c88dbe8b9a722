#include "docker/fake_engine.hpp"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

namespace harness::docker::testing {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using json = nlohmann::json;
using local = asio::local::stream_protocol;

std::string frame(std::uint8_t stream, const std::string& payload) {
  return attach_frame(stream, payload);
}

}  // namespace

std::string attach_frame(std::uint8_t stream, const std::string& payload) {
  std::string out(8, '\0');
  out[0] = static_cast<char>(stream);
  auto n = static_cast<std::uint32_t>(payload.size());
  out[4] = static_cast<char>(n >> 24);
  out[5] = static_cast<char>(n >> 16);
  out[6] = static_cast<char>(n >> 8);
  out[7] = static_cast<char>(n);
  return out + payload;
}

namespace {

std::string path_part(const std::string& target, std::size_t index) {
  // "/v1.41/containers/<id>/start?x" -> parts ["v1.41","containers","<id>","start"]
  std::string path = target.substr(0, target.find('?'));
  std::vector<std::string> parts;
  std::size_t pos = 1;
  while (pos <= path.size()) {
    auto next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    parts.push_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return index < parts.size() ? parts[index] : std::string{};
}

}  // namespace

fake_engine::fake_engine() : acceptor_(io_) {
  char templ[] = "/tmp/fake-engine-XXXXXX";
  dir_ = mkdtemp(templ);
  socket_path_ = dir_ + "/docker.sock";
  acceptor_.open(local());
  acceptor_.bind(local::endpoint(socket_path_));
  acceptor_.listen();
  thread_ = std::thread([this] { serve(); });
}

fake_engine::~fake_engine() {
  stopping_ = true;
  boost::system::error_code ec;
  // Wake the accept loop with one last connection, then join everything.
  local::socket poke(io_);
  poke.connect(local::endpoint(socket_path_), ec);
  thread_.join();
  poke.close(ec);
  changed_.notify_all();
  for (auto& w : workers_) w.join();
  std::filesystem::remove_all(dir_);
}

std::vector<std::string> fake_engine::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}
std::string fake_engine::last_create_body() const {
  std::lock_guard lock(mutex_);
  return last_create_body_;
}
std::size_t fake_engine::container_count() const {
  std::lock_guard lock(mutex_);
  return containers_.size();
}

void fake_engine::serve() {
  while (!stopping_) {
    local::socket socket(io_);
    boost::system::error_code ec;
    acceptor_.accept(socket, ec);
    if (ec || stopping_) break;
    workers_.emplace_back([this, s = std::move(socket)]() mutable { handle(std::move(s)); });
  }
}

void fake_engine::handle(local::socket socket) {
  boost::beast::flat_buffer buffer;
  boost::system::error_code ec;
  http::request<http::string_body> req;
  http::read(socket, buffer, req, ec);
  if (ec) return;
  std::string target(req.target());
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(fmt::format("{} {}", std::string(req.method_string()), target));
  }
  auto reply = [&](unsigned status, const std::string& body) {
    http::response<http::string_body> res{static_cast<http::status>(status), 11};
    res.set(http::field::content_type, "application/json");
    res.set(http::field::server, "Docker/fake");
    res.body() = body;
    res.prepare_payload();
    http::write(socket, res, ec);
  };
  auto message = [](const std::string& text) { return json{{"message", text}}.dump(); };

  for (const auto& [key, answer] : canned) {
    if (target.find(key) != std::string::npos) return reply(answer.first, answer.second);
  }
  if (target == "/_ping") return reply(200, "OK");
  if (target == "/version") {
    return reply(200, json{{"Version", "99.0-fake"},
                           {"ApiVersion", api_version},
                           {"MinAPIVersion", min_api_version},
                           {"Os", "linux"},
                           {"Arch", "amd64"},
                           {"KernelVersion", "6.0"}}
                          .dump());
  }
  const std::string kind = path_part(target, 1);
  const std::string name = path_part(target, 2);
  const std::string action = path_part(target, 3);
  std::unique_lock lock(mutex_);
  if (kind == "info") {
    json known = json::object();
    for (const auto& [runtime, args] : runtimes)
      known[runtime] = {{"path", "/usr/bin/" + runtime}, {"runtimeArgs", args}};
    return reply(200, json{{"DefaultRuntime", default_runtime}, {"Runtimes", known}}.dump());
  }
  if (kind == "images" && action == "json") {
    if (!images.count(name)) return reply(404, message("No such image: " + name));
    return reply(200, json{{"Id", "sha256:fake"}, {"RepoTags", {name}}, {"Size", 42}}.dump());
  }
  if (kind != "containers") return reply(404, message("page not found"));
  if (name == "create") {
    last_create_body_ = req.body();
    auto body = json::parse(req.body(), nullptr, false);
    if (!body.is_object() || !body.contains("Image")) return reply(400, message("config is invalid"));
    if (!images.count(body["Image"].get<std::string>())) {
      return reply(404, message("No such image: " + body["Image"].get<std::string>()));
    }
    container c;
    c.id = fmt::format("{:064x}", next_id_++);
    c.labels_json = body.value("Labels", json::object()).dump();
    containers_[c.id] = c;
    return reply(201, json{{"Id", c.id}, {"Warnings", json::array()}}.dump());
  }
  if (name == "json") {
    json list = json::array();
    for (auto& [id, c] : containers_) {
      list.push_back({{"Id", id},
                      {"Names", {"/fake"}},
                      {"Image", "img"},
                      {"State", c.running ? "running" : "exited"},
                      {"Created", 1},
                      {"Labels", json::parse(c.labels_json)}});
    }
    return reply(200, list.dump());
  }
  auto it = containers_.find(name);
  if (it == containers_.end()) return reply(404, message("No such container: " + name));
  container& c = it->second;
  if (action == "start") {
    c.started = c.running = true;
    changed_.notify_all();
    return reply(204, "");
  }
  if (action == "kill") {
    if (!c.running) return reply(409, message("Container " + name + " is not running"));
    c.running = false;
    c.exit_code = 137;
    changed_.notify_all();
    return reply(204, "");
  }
  if (action == "wait") {
    changed_.wait(lock, [&] { return stopping_ || !containers_.count(name) || !containers_[name].running; });
    auto gone = containers_.find(name);
    return reply(200, json{{"StatusCode", gone == containers_.end() ? 0 : gone->second.exit_code}}.dump());
  }
  if (action == "json") {
    return reply(200, json{{"Id", c.id},
                           {"State",
                            {{"Status", c.running ? "running" : "exited"},
                             {"Running", c.running},
                             {"OOMKilled", false},
                             {"ExitCode", c.exit_code},
                             {"Pid", 0},
                             {"Error", ""}}},
                           {"Config", {{"Labels", json::parse(c.labels_json)}}}}
                          .dump());
  }
  if (action == "stats") return reply(200, json{{"pids_stats", {{"current", 3}, {"limit", 128}}}}.dump());
  if (req.method() == http::verb::delete_ && action.empty()) {
    if (c.running && target.find("force=1") == std::string::npos) return reply(409, message("container is running"));
    containers_.erase(it);
    changed_.notify_all();
    return reply(204, "");
  }
  if (action == "attach") {
    lock.unlock();
    std::string head =
        "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
        "Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n";
    asio::write(socket, asio::buffer(head), ec);
    std::string input(static_cast<const char*>(buffer.data().data()), buffer.size());
    char chunk[4096];
    for (;;) {  // stdin until the client half-closes
      auto n = socket.read_some(asio::buffer(chunk), ec);
      if (ec) break;
      input.append(chunk, n);
    }
    lock.lock();
    changed_.wait(lock, [&] { return stopping_ || !containers_.count(name) || containers_[name].started; });
    lock.unlock();
    std::string out = frame(1, input) + frame(2, "bye\n");
    if (split_frames) {
      for (char ch : out) asio::write(socket, asio::buffer(&ch, 1), ec);
    } else {
      asio::write(socket, asio::buffer(out), ec);
    }
    lock.lock();
    if (containers_.count(name)) {
      containers_[name].running = false;
      containers_[name].exit_code = 0;
    }
    changed_.notify_all();
    lock.unlock();
    socket.shutdown(local::socket::shutdown_both, ec);
    return;
  }
  return reply(404, message("page not found"));
}

}  // namespace harness::docker::testing
