// The face's requests of the 2026-07-28 era: stateless. Each request names
// who it acts for (the transport's caller) and carries its own envelope, so
// nothing is remembered between requests except REPL state under a session
// handle: open_session mints one in the face's session table, execute_code
// with `session` runs there, close_session ends it. A handle belongs to the
// user and key that opened it; to anyone else it is as unknown as a made-up
// one. A request without a handle runs in a one-shot session of its own.
// An execute_code that needs the client's input on the way (an approval, an
// upstream elicitation) answers input_required and goes on when the client
// retries with the responses; one that runs longer than MCP_TASK_AFTER_MS,
// for a client that declares the Tasks extension, answers with a task that
// tasks/get, tasks/update and tasks/cancel follow (input_runs.hpp).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "harness/mcp_server/mcp_face.hpp"
#include "input_runs.hpp"
#include "session.hpp"

namespace harness::mcp_server {

// The face's table of sessions as the stateless era uses it for handles
// (face.cpp implements it; the caps and the idle sweep are the table's).
class session_table {
 public:
  virtual ~session_table() = default;
  virtual opened_session open_styled(std::string user_id, std::string key_id, bool admin, session_style style) = 0;
  virtual std::shared_ptr<mcp_session> find(const std::string& id, const std::string& key_id) = 0;
  virtual std::string elsewhere(const std::string& id) const = 0;
  virtual boost::asio::awaitable<bool> end(std::string id, std::string key_id) = 0;
};

class modern_requests {
 public:
  modern_requests(const boost::asio::any_io_executor& executor, core::clock& clock,
                  std::shared_ptr<const face_deps> deps, face_config config, session_table& table);

  // One message that passed modern::check_envelope (and the transport's
  // header checks): its answer, or nullopt for a notification.
  // `abandoned` (may be null): the client went away (mcp_face::handle_modern).
  boost::asio::awaitable<std::optional<nlohmann::json>> handle(nlohmann::json message, mcp_caller caller,
                                                               notify_fn notify,
                                                               std::shared_ptr<core::abandonment> abandoned);

  // Ends the one-shot requests still running (server shutdown).
  boost::asio::awaitable<void> shutdown();
  // Drops calls that waited too long for their client's input.
  void sweep() { runs_.sweep(); }

 private:
  boost::asio::awaitable<nlohmann::json> call_tool(const nlohmann::json& message, const mcp_caller& caller,
                                                   notify_fn notify, std::shared_ptr<core::abandonment> abandoned);
  boost::asio::awaitable<nlohmann::json> open_session(const nlohmann::json& id, const mcp_caller& caller);
  // skills/list and skills/get of the Skills extension (skills_extension.hpp).
  boost::asio::awaitable<nlohmann::json> skills_request(const nlohmann::json& message, const mcp_caller& caller);
  boost::asio::awaitable<nlohmann::json> close_session(const nlohmann::json& id, const nlohmann::json& args,
                                                       const mcp_caller& caller);
  // A handle's session when it is this caller's; else the answer to give.
  std::variant<std::shared_ptr<mcp_session>, nlohmann::json> session_for(const nlohmann::json& id,
                                                                         const std::string& handle,
                                                                         const mcp_caller& caller);
  // Runs the request in a session of its own, closed after.
  boost::asio::awaitable<std::optional<nlohmann::json>> one_shot(nlohmann::json message, const mcp_caller& caller,
                                                                 notify_fn notify);
  // execute_code in a session of its own, which may pause for the client's input.
  boost::asio::awaitable<nlohmann::json> execute_one_shot(nlohmann::json message, const mcp_caller& caller,
                                                          bool may_task, std::shared_ptr<core::abandonment> abandoned);
  // A one-shot session, kept in one_shots_ (so shutdown ends it) until end_one_shot.
  std::pair<std::uint64_t, std::shared_ptr<mcp_session>> open_one_shot(const mcp_caller& caller);
  static boost::asio::awaitable<void> end_one_shot(modern_requests* self, std::uint64_t number,
                                                   std::shared_ptr<mcp_session> session);
  nlohmann::json discover() const;

  boost::asio::any_io_executor executor_;
  core::clock& clock_;
  std::shared_ptr<const face_deps> deps_;
  face_config config_;
  session_table& table_;
  std::uint64_t next_one_shot_ = 1;
  std::map<std::uint64_t, std::shared_ptr<mcp_session>> one_shots_;  // running, by number
  input_runs runs_;
};

}  // namespace harness::mcp_server
