#include "message_errors.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/mcp/errors.hpp"

namespace harness::mcp::detail {

error message_too_large(const std::string& server, std::size_t bytes, std::size_t limit, bool at_least) {
  return make_error(mcp::errc::message_too_large,
                    "server " + server + " sent a message of " + (at_least ? "more than " : "") +
                        std::to_string(bytes) + " bytes, over the limit of " + std::to_string(limit) +
                        " bytes (MCP_MAX_MESSAGE_BYTES); it was dropped",
                    "raise MCP_MAX_MESSAGE_BYTES, or ask the tool for less data at a time");
}

error message_not_json(const std::string& server, std::string_view text, const std::string& parse_error) {
  return make_error(mcp::errc::bad_response,
                    "server " + server + " sent a message that is not valid JSON (" + parse_error +
                        "); it starts: " + printable(text, 120),
                    "the server is broken: check its log and version");
}

result<nlohmann::json> parse_message(std::string_view text) {
  std::string why;
  auto message = core::parse_json(text, &why);
  if (message.is_discarded()) return make_error(mcp::errc::bad_response, std::move(why));
  return message;
}

std::string printable(std::string_view text, std::size_t max) {
  // ASCII only: a cut can split a UTF-8 sequence, and the text may be invalid UTF-8 to
  // begin with; either would make the error unserializable as JSON.
  std::string out;
  for (char c : text.substr(0, max)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  if (text.size() > max) out += "...";
  return out;
}

}  // namespace harness::mcp::detail
