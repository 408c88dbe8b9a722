#include "harness/docker/engine_client.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/docker/errors.hpp"

#include <cctype>
#include <cstdio>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "attach_stream_impl.hpp"
#include "engine_connection.hpp"
#include "engine_errors.hpp"
#include "engine_json.hpp"

namespace harness::docker {
namespace {

using detail::connection;
using detail::http::verb;
using json = nlohmann::json;

// The API versions this client is written against. 1.41 is Docker 20.10; the
// calls used here did not change up to 1.47, and engines from 29 on refuse < 1.44.
constexpr std::pair<int, int> min_api{1, 41};
constexpr std::pair<int, int> max_api{1, 47};
constexpr std::size_t body_limit = 16 * 1024 * 1024;

std::optional<std::pair<int, int>> parse_api(const std::string& text) {
  int major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::pair{major, minor};
}

std::string url_encode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// Ids, names and image references go into URL paths: refuse anything that could
// change the path rather than escaping it into something the engine misreads.
bool is_safe_reference(std::string_view text) {
  if (text.empty() || text.size() > 512) return false;
  for (unsigned char c : text) {
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '@')) return false;
  }
  return text.find("..") == std::string_view::npos;
}

error bad_reference(std::string_view what, std::string_view text) {
  return make_error(docker::errc::bad_request, fmt::format("invalid {} '{}'", what, text),
                    "ids, names and images use letters, digits and - _ . : / @");
}

class engine_client_impl final : public engine_client, public std::enable_shared_from_this<engine_client_impl> {
 public:
  engine_client_impl(boost::asio::any_io_executor executor, docker_config config)
      : executor_(std::move(executor)), config_(std::move(config)) {}

  const engine_endpoint& endpoint() const override { return config_.endpoint; }

  task<status> ping() override {
    auto res = co_await call(verb::get, "/_ping", {}, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 200) co_return detail::engine_error(res->result_int(), res->body(), "ping");
    co_return status{};
  }

  task<result<version_info>> version() override {
    auto res = co_await call(verb::get, "/version", {}, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 200) co_return detail::engine_error(res->result_int(), res->body(), "version");
    auto info = detail::parse_version(res->body());
    if (!info) co_return info.error();
    auto engine_max = parse_api(info->api_version);
    auto engine_min = parse_api(info->min_api_version.empty() ? "1.12" : info->min_api_version);
    if (!engine_max || !engine_min) co_return detail::protocol_error("GET /version", "no ApiVersion");
    auto chosen = std::min(*engine_max, max_api);
    if (chosen < min_api || chosen < *engine_min) {
      co_return make_error(
          docker::errc::api_version,
          fmt::format("the Docker engine speaks API {} to {}; this client needs {}.{} to {}.{}", info->min_api_version,
                      info->api_version, min_api.first, min_api.second, max_api.first, max_api.second),
          "use Docker Engine 20.10 or newer");
    }
    info->negotiated_api_version = fmt::format("{}.{}", chosen.first, chosen.second);
    {
      std::lock_guard lock(mutex_);
      api_prefix_ = "/v" + info->negotiated_api_version;
    }
    co_return *info;
  }

  task<result<engine_info>> info() override {
    auto res = co_await versioned(verb::get, "/info", {}, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 200) co_return detail::engine_error(res->result_int(), res->body(), "info");
    co_return detail::parse_info(res->body());
  }

  task<result<image_info>> inspect_image(std::string name) override {
    if (!is_safe_reference(name)) co_return bad_reference("image", name);
    auto res = co_await versioned(verb::get, "/images/" + name + "/json", {}, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 200) {
      auto err = detail::engine_error(res->result_int(), res->body(), "inspect image " + name);
      if (res->result_int() == 404) err.code = docker::errc::image_not_found;
      co_return err;
    }
    co_return detail::parse_image(res->body());
  }

  task<result<std::string>> create_container(json body, std::string name) override {
    std::string target = "/containers/create";
    if (!name.empty()) {
      if (!is_safe_reference(name)) co_return bad_reference("container name", name);
      target += "?name=" + url_encode(name);
    }
    auto res = co_await versioned(verb::post, target, body.dump(), config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 201) co_return detail::engine_error(res->result_int(), res->body(), "create container");
    auto parsed = core::parse_json(res->body());
    if (!parsed.is_object() || !parsed.contains("Id") || !parsed["Id"].is_string()) {
      co_return detail::protocol_error("create container", "no Id");
    }
    co_return parsed["Id"].get<std::string>();
  }

  task<status> start_container(std::string id) override {
    co_return co_await simple(verb::post, "/containers/{}/start", id, "start container", 204, 304);
  }

  task<status> kill_container(std::string id, std::string signal) override {
    co_return co_await simple(verb::post, "/containers/{}/kill?signal=" + url_encode(signal), id, "kill container",
                              204);
  }

  task<status> remove_container(std::string id, bool force) override {
    std::string query = force ? "?force=1&v=1" : "?v=1";
    co_return co_await simple(verb::delete_, "/containers/{}" + query, id, "remove container", 204);
  }

  task<result<wait_result>> wait_container(std::string id, std::chrono::milliseconds timeout) override {
    if (!is_safe_reference(id)) co_return bad_reference("container id", id);
    auto res = co_await versioned(verb::post, "/containers/" + id + "/wait?condition=not-running", {}, timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 200) co_return detail::engine_error(res->result_int(), res->body(), "wait for container");
    co_return detail::parse_wait(res->body());
  }

  task<result<std::vector<container_summary>>> list_containers(std::string label_filter, bool all) override {
    json filters = json::object();
    if (!label_filter.empty()) filters["label"] = json::array({label_filter});
    std::string target = fmt::format("/containers/json?all={}&filters={}", all ? 1 : 0, url_encode(filters.dump()));
    auto res = co_await versioned(verb::get, target, {}, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 200) co_return detail::engine_error(res->result_int(), res->body(), "list containers");
    co_return detail::parse_container_list(res->body());
  }

  task<result<container_state>> inspect_container(std::string id) override {
    if (!is_safe_reference(id)) co_return bad_reference("container id", id);
    auto res = co_await versioned(verb::get, "/containers/" + id + "/json", {}, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 200) co_return detail::engine_error(res->result_int(), res->body(), "inspect container");
    co_return detail::parse_container_state(res->body());
  }

  task<result<pids_usage>> container_pids(std::string id) override {
    if (!is_safe_reference(id)) co_return bad_reference("container id", id);
    auto res =
        co_await versioned(verb::get, "/containers/" + id + "/stats?stream=0&one-shot=1", {}, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 200) co_return detail::engine_error(res->result_int(), res->body(), "container stats");
    co_return detail::parse_pids(res->body());
  }

  task<result<std::unique_ptr<attach_stream>>> attach_container(std::string id) override {
    if (!is_safe_reference(id)) co_return bad_reference("container id", id);
    auto prefix = co_await api_prefix();
    if (!prefix) co_return prefix.error();
    auto conn = co_await detail::connect(executor_, config_.endpoint, config_.request_timeout);
    if (!conn) co_return conn.error();
    auto req =
        make_request(verb::post, *prefix + "/containers/" + id + "/attach?stream=1&stdin=1&stdout=1&stderr=1", {});
    req.set(detail::http::field::connection, "Upgrade");
    req.set(detail::http::field::upgrade, "tcp");
    auto res = co_await (*conn)->upgrade(req, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() != 101 && res->result_int() != 200) {
      co_return detail::engine_error(res->result_int(), res->body(), "attach to container");
    }
    std::string leftover = (*conn)->take_leftover();
    co_return std::unique_ptr<attach_stream>(
        std::make_unique<detail::attach_stream_impl>(std::move(*conn), std::move(leftover)));
  }

 private:
  detail::request make_request(verb method, const std::string& target, std::string body) const {
    detail::request req{method, target, 11};
    req.set(detail::http::field::host,
            config_.endpoint.kind == engine_endpoint::transport::tcp ? config_.endpoint.host : "docker");
    req.set(detail::http::field::user_agent, "mcp-harness");
    if (!body.empty() || method == verb::post) {
      req.set(detail::http::field::content_type, "application/json");
      req.body() = std::move(body);
    }
    req.prepare_payload();
    return req;
  }

  task<result<detail::response>> call(verb method, std::string target, std::string body,
                                      std::chrono::milliseconds timeout) {
    auto conn = co_await detail::connect(executor_, config_.endpoint, config_.request_timeout);
    if (!conn) co_return conn.error();
    auto req = make_request(method, target, std::move(body));
    auto res = co_await (*conn)->round_trip(req, timeout, body_limit);
    (*conn)->close();
    co_return res;
  }

  task<result<std::string>> api_prefix() {
    {
      std::lock_guard lock(mutex_);
      if (!api_prefix_.empty()) co_return api_prefix_;
    }
    auto info = co_await version();
    if (!info) co_return info.error();
    co_return "/v" + info->negotiated_api_version;
  }

  task<result<detail::response>> versioned(verb method, std::string path, std::string body,
                                           std::chrono::milliseconds timeout) {
    auto prefix = co_await api_prefix();
    if (!prefix) co_return prefix.error();
    co_return co_await call(method, *prefix + path, std::move(body), timeout);
  }

  // A call that answers with no body: path has one "{}" for the container id.
  task<status> simple(verb method, std::string path, std::string id, std::string what, unsigned ok_status,
                      unsigned also_ok = 0) {
    if (!is_safe_reference(id)) co_return bad_reference("container id", id);
    std::string target = fmt::format(fmt::runtime(path), id);
    auto res = co_await versioned(method, target, {}, config_.request_timeout);
    if (!res) co_return res.error();
    if (res->result_int() == ok_status || (also_ok != 0 && res->result_int() == also_ok)) co_return status{};
    co_return detail::engine_error(res->result_int(), res->body(), what + " " + id.substr(0, 12));
  }

  boost::asio::any_io_executor executor_;
  docker_config config_;
  std::mutex mutex_;
  std::string api_prefix_;
};

}  // namespace

std::shared_ptr<engine_client> create_engine_client(boost::asio::any_io_executor executor, docker_config config) {
  return std::make_shared<engine_client_impl>(std::move(executor), std::move(config));
}

}  // namespace harness::docker
