// GET /ui/...: the dashboard's files, from the binary (ui_assets.hpp). The
// pages load before anyone signs in, so these routes are open; everything the
// pages show comes from the API, with the key the user typed.
#include <map>

#include <fmt/format.h>

#include "harness/http/api.hpp"
#include "harness/http/errors.hpp"
#include "ui_assets.hpp"

namespace harness::http {
namespace {

// The pages run only their own scripts and styles and talk only to this
// origin: an injected value that slipped past the escaping still could not run
// a script, load one from elsewhere, or send data anywhere. Downloads of
// workspace files are blob: URLs the page makes itself.
constexpr std::string_view content_security_policy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string_view content_type(std::string_view path) {
  static const std::map<std::string_view, std::string_view> types{
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".json", "application/json"},
      {".txt", "text/plain; charset=utf-8"},
      {".woff2", "font/woff2"},
  };
  auto dot = path.rfind('.');
  if (dot != std::string_view::npos) {
    if (auto it = types.find(path.substr(dot)); it != types.end()) return it->second;
  }
  return "application/octet-stream";
}

// FNV-1a: a cheap fingerprint of a file that changes when the build does.
std::string etag_of(std::string_view body) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : body) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return fmt::format("\"{:016x}\"", hash);
}

struct served_asset {
  std::string_view body;
  std::string_view type;
  std::string etag;
};

const std::map<std::string_view, served_asset>& asset_table() {
  static const auto table = [] {
    std::map<std::string_view, served_asset> out;
    for (const auto& asset : embedded_ui_assets()) {
      out.emplace(asset.path, served_asset{asset.body, content_type(asset.path), etag_of(asset.body)});
    }
    return out;
  }();
  return table;
}

http_response with_page_headers(http_response response) {
  response.set_header("Content-Security-Policy", std::string(content_security_policy));
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Referrer-Policy", "no-referrer");
  response.set_header("Cross-Origin-Opener-Policy", "same-origin");
  return response;
}

http_response serve(const request_context& context, std::string_view path) {
  const auto& table = asset_table();
  auto it = table.find(path);
  if (it == table.end()) {
    return error_response(http::errc::not_found,
                          fmt::format("the dashboard has no file '{}'; open /ui/ for its start page", path));
  }
  const auto& asset = it->second;
  http_response response;
  // Revalidated on every load (the ETag makes that a 304), so a new build is
  // seen at once: the files are small and their names carry no hash.
  response.set_header("Cache-Control", "no-cache");
  response.set_header("ETag", asset.etag);
  if (context.request.header("If-None-Match").value_or("") == asset.etag) {
    response.status = 304;
    return with_page_headers(std::move(response));
  }
  response.set_header("Content-Type", std::string(asset.type));
  response.body = std::string(asset.body);
  return with_page_headers(std::move(response));
}

http_response redirect_to_ui() {
  http_response response;
  response.status = 308;
  response.set_header("Location", "/ui/");
  response.set_header("Content-Type", "text/plain; charset=utf-8");
  response.body = "the dashboard is at /ui/\n";
  return response;
}

}  // namespace

http_response handle_ui_redirect(const request_context&) {
  return redirect_to_ui();
}

http_response handle_ui_index(const request_context& context) {
  return serve(context, "index.html");
}

http_response handle_ui_file(const request_context& context) {
  return serve(context, context.params.at("path"));
}

}  // namespace harness::http
