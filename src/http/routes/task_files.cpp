// GET /tasks/{id}/files (list) and GET /tasks/{id}/files/{path...} (download).
#include <string_view>

#include "harness/core/run_blocking.hpp"
#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "harness/http/services.hpp"
#include "harness/skills/workspace_store.hpp"

namespace harness::http {
namespace {

http_response no_store() {
  return error_response(http::errc::workspace_unavailable,
                        "this server keeps no task workspaces; set WORKSPACE_DIR and restart");
}

// By extension; HTML and SVG go out as text so a browser never runs what a
// sandbox wrote (the Content-Disposition asks for a download anyway).
std::string_view content_type_of(std::string_view path) {
  auto dot = path.rfind('.');
  std::string_view ext = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  struct type {
    std::string_view ext, mime;
  };
  static constexpr type types[] = {
      {"json", "application/json"},
      {"csv", "text/csv; charset=utf-8"},
      {"txt", "text/plain; charset=utf-8"},
      {"md", "text/markdown; charset=utf-8"},
      {"js", "text/javascript; charset=utf-8"},
      {"log", "text/plain; charset=utf-8"},
      {"html", "text/plain; charset=utf-8"},
      {"svg", "text/plain; charset=utf-8"},
      {"xml", "application/xml"},
      {"png", "image/png"},
      {"jpg", "image/jpeg"},
      {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},
      {"pdf", "application/pdf"},
      {"zip", "application/zip"},
  };
  for (const auto& t : types) {
    if (iequals(t.ext, ext)) return t.mime;
  }
  return "application/octet-stream";
}

}  // namespace

// Ownership comes first: a caller who may not see the task learns nothing,
// not even whether this server keeps workspaces.
boost::asio::awaitable<http_response> handle_list_task_files(const request_context& context) {
  const auto& task_id = context.params.at("id");
  auto bad = co_await check_task_owner(context, task_id);  // not in the if: GCC 12 and co_await in conditions
  if (bad) co_return *bad;
  if (!context.svc.workspaces) co_return no_store();
  auto store = context.svc.workspaces;  // keeps it alive across the await
  auto files = co_await core::run_blocking(context.svc.blocking, [&] { return store->list(task_id); });
  if (!files) co_return error_response(files.error());
  co_return json_response(200, {{"taskId", task_id}, {"files", std::move(*files)}});
}

boost::asio::awaitable<http_response> handle_get_task_file(const request_context& context) {
  const auto& task_id = context.params.at("id");
  auto bad = co_await check_task_owner(context, task_id);
  if (bad) co_return *bad;
  if (!context.svc.workspaces) co_return no_store();
  const auto& path = context.params.at("path");
  auto store = context.svc.workspaces;  // keeps it alive across the await
  auto bytes = co_await core::run_blocking(context.svc.blocking, [&] { return store->read(task_id, path); });
  if (!bytes) co_return error_response(bytes.error());
  http_response response;
  response.status = 200;
  response.body = std::move(*bytes);
  response.set_header("Content-Type", std::string(content_type_of(path)));
  // The file name is a validated path segment ([A-Za-z0-9._-]): safe inside quotes.
  response.set_header("Content-Disposition", "attachment; filename=\"" + path.substr(path.rfind('/') + 1) + "\"");
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Cache-Control", "no-store");
  co_return response;
}

}  // namespace harness::http
