// GET /oauth/callback: where an authorization server sends the browser back
// after a person approved (or refused) access for a remote MCP server: the
// operator for a shared server, a user for their own connection to a
// user-scoped one (the flow, found by its state, was started for that user,
// and the tokens become theirs). It needs no API key (a browser coming back from another site has
// none): the `state` it carries is the credential, random, bound to one
// pending authorization, single use and short-lived. The answer is a small
// page for a person, with the JSON status code the API uses.
#include "harness/mcp/oauth.hpp"
#include "harness/http/api.hpp"
#include "harness/http/services.hpp"

namespace harness::http {
namespace {

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

http_response page(unsigned status, const std::string& title, const std::string& text) {
  http_response response;
  response.status = status;
  response.body = "<!doctype html><html><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
                  "</title></head><body><h1>" + html_escape(title) + "</h1><p>" + html_escape(text) +
                  "</p></body></html>\n";
  response.set_header("Content-Type", "text/html; charset=utf-8");
  response.set_header("Cache-Control", "no-store");
  // Nothing on the page runs, loads or frames: it only says what happened.
  response.set_header("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
  response.set_header("Referrer-Policy", "no-referrer");
  return response;
}

}  // namespace

boost::asio::awaitable<http_response> handle_oauth_callback(const request_context& context) {
  if (!context.svc.oauth) {
    co_return page(404, "No authorization is waiting", "This server has no remote MCP server that uses OAuth.");
  }
  auto done = co_await context.svc.oauth->complete(context.request.query);
  if (!done) {
    const auto& e = done.error();
    co_return page(e.code.http_status(), "Authorization failed", e.describe());
  }
  std::string scopes;
  for (const auto& s : done->scopes) scopes += (scopes.empty() ? "" : " ") + s;
  if (!done->user.empty()) {
    // A user-scoped server: the flow was started for this user, and the tokens are theirs alone.
    co_return page(200, "Connected",
                   "MCP server " + done->server + " is connected for user " + done->user +
                       (scopes.empty() ? "" : " (scopes: " + scopes + ")") +
                       ". Their code uses it from now on; you can close this window.");
  }
  co_return page(200, "Authorized",
                 "MCP server " + done->server + " is authorized" + (scopes.empty() ? "" : " (scopes: " + scopes + ")") +
                     ". The harness connects to it now; you can close this window.");
}

}  // namespace harness::http
