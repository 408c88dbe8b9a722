#include "harness/mcp_server/mcp_face.hpp"

#include <algorithm>
#include <map>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/ids.hpp"
#include "harness/core/logging.hpp"
#include "harness/core/periodic_job.hpp"
#include "harness/core/spawn_logged.hpp"
#include "harness/core/when_all.hpp"
#include "modern_requests.hpp"
#include "session.hpp"

namespace harness::mcp_server {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;

// 128 random bits: the id is what a client without a key (a server running
// open) proves its session with.
constexpr std::size_t session_id_bytes = 16;

class face_impl final : public mcp_face, public session_table, public std::enable_shared_from_this<face_impl> {
 public:
  face_impl(const asio::any_io_executor& executor, core::clock& clock, face_deps deps, face_config config)
      : executor_(executor),
        clock_(clock),
        deps_(std::make_shared<const face_deps>(std::move(deps))),
        config_(config),
        modern_(executor, clock, deps_, config, *this),
        sweep_(executor, clock, "mcp sessions: idle sweep") {}

  void start_sweep() {
    const auto interval = std::clamp<std::chrono::milliseconds>(config_.session_idle / 4, std::chrono::seconds(1),
                                                                std::chrono::seconds(60));
    sweep_.start(interval, core::periodic_job::plain([weak = weak_from_this()] {
                   if (auto self = weak.lock()) self->end_idle_sessions();
                 }));
  }

  std::shared_ptr<mcp_session> open_private(std::string user_id) override {
    auto id = new_id();
    if (!id) return nullptr;
    return create_session(executor_, clock_, deps_, config_, std::move(*id), std::move(user_id), {}, true);
  }

  opened_session open(std::string user_id, std::string key_id, bool admin) override {
    return open_styled(std::move(user_id), std::move(key_id), admin, session_style::protocol);
  }

  opened_session open_styled(std::string user_id, std::string key_id, bool admin, session_style style) override {
    if (stopping_) return {nullptr, session_refusal::stopping};
    if (sessions_.size() >= config_.max_sessions) return {nullptr, session_refusal::server_full};
    std::size_t of_key = 0, of_user = 0;
    for (const auto& [id, session] : sessions_) {
      of_key += !key_id.empty() && session->key_id() == key_id;
      of_user += session->user_id() == user_id;
    }
    if (of_key >= config_.max_sessions_per_key) return {nullptr, session_refusal::key_full};
    if (of_user >= config_.max_sessions_per_user) return {nullptr, session_refusal::user_full};
    auto id = new_id();
    if (!id) return {nullptr, session_refusal::server_full};
    auto session =
        create_session(executor_, clock_, deps_, config_, *id, std::move(user_id), std::move(key_id), admin, style);
    sessions_[*id] = session;
    return {session, session_refusal::none};
  }

  std::shared_ptr<mcp_session> find(const std::string& id, const std::string& key_id) override {
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second->key_id() != key_id) return nullptr;
    return it->second;
  }

  std::string elsewhere(const std::string& id) const override {
    // "mcp_" and 32 hex digits, then ".<replica>" (see face_config::replica).
    constexpr std::size_t prefix = 4 + 2 * session_id_bytes;
    if (config_.replica.empty() || id.size() <= prefix + 1 || id[prefix] != '.') return {};
    auto replica = id.substr(prefix + 1);
    return replica == config_.replica ? std::string() : replica;
  }

  asio::awaitable<bool> end(std::string id, std::string key_id) override {
    auto session = find(id, key_id);
    if (!session) co_return false;
    sessions_.erase(id);
    co_await session->close();
    co_return true;
  }

  asio::awaitable<void> shutdown() override {
    stopping_ = true;
    sweep_.stop();
    co_await core::close_all(sessions_, &close_session);
    co_await modern_.shutdown();
  }

  asio::awaitable<std::optional<json>> handle_modern(json message, mcp_caller caller, notify_fn notify,
                                                     std::shared_ptr<core::abandonment> abandoned) override {
    auto self = shared_from_this();  // the face outlives the request
    co_return co_await modern_.handle(std::move(message), std::move(caller), std::move(notify), std::move(abandoned));
  }

  std::size_t session_count() const override { return sessions_.size(); }

 private:
  std::optional<std::string> new_id() {
    auto id = core::make_secret_id("mcp_", session_id_bytes);
    if (!id) {
      core::log_error("mcp: no session id could be made: {}", id.error().describe());
      return std::nullopt;
    }
    if (!config_.replica.empty()) return *id + "." + config_.replica;
    return *id;
  }

  static asio::awaitable<void> close_session(std::shared_ptr<mcp_session> session) { co_await session->close(); }

  void end_idle_sessions() {
    modern_.sweep();
    auto now = clock_.steady_now();
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      auto session = it->second;
      if (!session->busy() && now - session->last_active() >= config_.session_idle) {
        core::log_info("mcp session {} idled out", session->id());
        it = sessions_.erase(it);
        core::spawn_logged(executor_, close_session(std::move(session)), "mcp session: closing after idling out");
      } else {
        ++it;
      }
    }
  }

  asio::any_io_executor executor_;
  core::clock& clock_;
  std::shared_ptr<const face_deps> deps_;
  face_config config_;
  modern_requests modern_;  // after deps_ and config_, which it is made from
  core::periodic_job sweep_;
  std::map<std::string, std::shared_ptr<mcp_session>> sessions_;
  bool stopping_ = false;
};

}  // namespace

std::shared_ptr<mcp_face> create_mcp_face(const asio::any_io_executor& executor, core::clock& clock, face_deps deps,
                                          face_config config) {
  auto face = std::make_shared<face_impl>(executor, clock, std::move(deps), config);
  face->start_sweep();
  return face;
}

message_kind kind_of(const json& message) {
  if (!message.is_object()) return message_kind::other;
  auto version = message.find("jsonrpc");
  auto method = message.find("method");
  if (version == message.end() || *version != "2.0" || method == message.end() || !method->is_string()) {
    return message_kind::other;
  }
  auto id = message.find("id");
  if (id == message.end()) return message_kind::notification;
  // A null id is not allowed in MCP; a float id is not JSON-RPC's either.
  if (id->is_string() || id->is_number_integer()) return message_kind::request;
  return message_kind::other;
}

const std::vector<std::string>& supported_versions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26"};
  return versions;
}

}  // namespace harness::mcp_server
