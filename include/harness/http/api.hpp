// The API's route table and its handlers. Each handler is a plain function of
// the request context, testable without a socket.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/error.hpp"
#include "harness/core/metrics.hpp"
#include "harness/http/router.hpp"

namespace harness::http {

// GET /health: 200 {"status":"ok",...} when every required component is up,
// else 503 {"status":"starting",...} while a required component is still
// coming up for the first time (an MCP server), or {"status":"degraded",...}
// when one is down; components listed under "components".
http_response handle_health(const request_context& context);
// GET /health/live: 200 while the process answers (Kubernetes liveness).
http_response handle_health_live(const request_context& context);
// GET /health/ready: 200 {"status":"ready"} once every required component is
// up; else 503 {"status":"starting"|"degraded","notReady":[names]} (readiness).
http_response handle_health_ready(const request_context& context);

// POST /task {"userId","task","conversationId"?,"mode"?,"restorePii"?}: sync
// answers when the task ends, async answers 202 with the ids, stream answers
// with the task's Server-Sent Events. 503 naming the missing setting when no
// LLM is configured.
boost::asio::awaitable<http_response> handle_post_task(const request_context& context);

// GET /tasks?userId=&status=&limit=&before=: the user's tasks, newest first;
// without userId, an admin key (and the open caller) sees every user's.
// "nextCursor" (when more may follow) goes into ?before= for the next page.
boost::asio::awaitable<http_response> handle_list_tasks(const request_context& context);

// GET /tasks/{id}?userId=&transcript=: status, result and the transcript as the LLM saw it.
boost::asio::awaitable<http_response> handle_get_task(const request_context& context);

// GET /tasks/{id}/events: Server-Sent Events, resumable with Last-Event-ID.
boost::asio::awaitable<http_response> handle_task_events(const request_context& context);

// DELETE /tasks/{id}?userId=: cancels a queued or running task.
boost::asio::awaitable<http_response> handle_cancel_task(const request_context& context);
// POST /tasks/{id}/approvals/{approvalId} {"decision": "approve"|"deny", "reason"?, "scope"?: "call"|"task"}
boost::asio::awaitable<http_response> handle_decide_approval(const request_context& context);

// POST /execute: {"userId","code","sessionId"?} runs code in a sandbox
// without an LLM; a failed or timed-out block is a 200 with "error".
boost::asio::awaitable<http_response> handle_execute(const request_context& context);

// DELETE /sessions/{id}?userId=: ends an /execute session and its sandbox.
boost::asio::awaitable<http_response> handle_delete_session(const request_context& context);

// /mcp: code mode as an MCP server over Streamable HTTP (routes/mcp.cpp).
boost::asio::awaitable<http_response> handle_mcp_post(const request_context& context);
http_response handle_mcp_get(const request_context& context);
boost::asio::awaitable<http_response> handle_mcp_delete(const request_context& context);

// GET /tools?query=&userId=: [{name, description}] of connected servers'
// tools, best match first; with userId, that user's instances of user-scoped
// servers (started when their tools are not known yet).
boost::asio::awaitable<http_response> handle_list_tools(const request_context& context);

// GET /tools/{name}?userId=: {name, description, inputSchema, outputSchema?,
// annotations?, declaration}: `declaration` is the tool as TypeScript.
boost::asio::awaitable<http_response> handle_tool_details(const request_context& context);

// GET /me: who the request's key is {auth, keyId, label, users, admin}, for
// the dashboard's sign-in (and any client that wants to check its key).
http_response handle_me(const request_context& context);

// The dashboard (routes/ui.cpp): GET / and /ui redirect to /ui/, which serves
// ui/index.html; GET /ui/{path...} serves the other files of ui/.
http_response handle_ui_redirect(const request_context& context);
http_response handle_ui_index(const request_context& context);
http_response handle_ui_file(const request_context& context);

// GET /oauth/callback?code=&state=: completes the OAuth authorization of a
// remote MCP server that an operator approved in a browser (routes/oauth.cpp).
boost::asio::awaitable<http_response> handle_oauth_callback(const request_context& context);

// GET /metrics: every metric in the Prometheus text format 0.0.4.
http_response handle_metrics(const request_context& context);

// The server's per-request metrics: harness_http_requests_total{method,route,status}
// and harness_http_request_duration_seconds{method,route}. A connection builds
// one and records each request it answers; recording does not allocate once a
// (method, route, status) combination has been seen. Not thread-safe (one per
// connection): it keeps the children of the combinations its connection saw,
// so a repeated one skips the registry's lookup by label values.
class request_metrics {
 public:
  explicit request_metrics(core::metrics_registry& registry);
  // `route` is the matched route's pattern ("/tools/{name}", never the raw
  // path, so the label set stays bounded); empty means no route matched (or
  // the request could not be parsed), recorded as "unmatched". Methods other
  // than the standard ones are recorded as "OTHER".
  void record(std::string_view method, std::string_view route, unsigned status, double seconds);

 private:
  struct seen {
    std::string_view method;  // one of method_label's literals
    std::string route;
    unsigned status;
    core::counter* requests;
    core::histogram* duration;
  };
  // A keep-alive connection sees a handful of combinations; past this many it
  // looks them up each time rather than grow.
  static constexpr std::size_t max_seen = 16;

  core::family<core::counter>& requests_;
  core::family<core::histogram>& duration_;
  std::vector<seen> seen_;
};

// The /skills routes run the library (files, or PostgreSQL with STORE_URL) on the blocking pool.
// GET /skills?userId=: {"userId", "skills": [{name, description, files, updated, owner, problem?}]}.
boost::asio::awaitable<http_response> handle_list_skills(const request_context& context);
// The acting user's secrets: names only on read (routes/secrets.cpp).
boost::asio::awaitable<http_response> handle_list_secrets(const request_context& context);
boost::asio::awaitable<http_response> handle_put_secret(const request_context& context);
boost::asio::awaitable<http_response> handle_delete_secret(const request_context& context);
// The acting user's connections to user-scoped remote servers with OAuth (routes/connections.cpp).
boost::asio::awaitable<http_response> handle_list_connections(const request_context& context);
boost::asio::awaitable<http_response> handle_connect(const request_context& context);
boost::asio::awaitable<http_response> handle_disconnect(const request_context& context);

// GET /skills/{userId}/{name}: {name, description, skillMd, files: [{path, size}], updated, owner}.
boost::asio::awaitable<http_response> handle_get_skill(const request_context& context);

// GET /skills/{userId}/{name}/files/{path...}: one file of the skill, as text.
boost::asio::awaitable<http_response> handle_get_skill_file(const request_context& context);

// DELETE /skills/{userId}/{name}: removes the user's skill; 403 for an example, 404 when missing.
boost::asio::awaitable<http_response> handle_delete_skill(const request_context& context);

// GET /tasks/{id}/files: {"taskId", "files": [{path, size, modified}]}; 404 when the task wrote nothing.
boost::asio::awaitable<http_response> handle_list_task_files(const request_context& context);

// GET /tasks/{id}/files/{path...}: the file's bytes as a download; 404 JSON when missing.
boost::asio::awaitable<http_response> handle_get_task_file(const request_context& context);

// Nothing when the caller may see task `task_id` (it belongs to a user the
// caller may act for, and to the ?userId= when one is named); else the answer:
// 403 for a ?userId= the caller may not act for, and for another user's task
// the same 404 task_not_found as for a missing one. Without an agent (no task
// records) only the open caller passes.
boost::asio::awaitable<std::optional<http_response>> check_task_owner(const request_context& context,
                                                                      const std::string& task_id);

// Every route of the API, in one table.
router make_api_router();

}  // namespace harness::http
