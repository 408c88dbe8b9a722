// libFuzzer target for what the MCP client reads of a server's message: the
// streaming identity scanner (id and method of a message it may not keep) and
// the bounded parse. For any bytes, in any pieces: no crash, no sanitizer
// report; the scanner reads a message the same whole or in pieces; when the
// message parses as an object, the id the scanner found is its id.
#include <cstdint>

#include "fuzz_input.hpp"
#include "harness/mcp/message_identity.hpp"
#include "message_errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using harness::fuzz::require;
  harness::mcp::message_identity_scanner scanner;
  std::string text;
  for (auto piece : harness::fuzz::pieces(data, size)) {
    scanner.feed(piece);
    text += piece;
  }
  const auto& streamed = scanner.identity();
  auto whole = harness::mcp::identify_message(text);
  require(streamed.id == whole.id && streamed.has_method == whole.has_method && streamed.complete == whole.complete);
  auto message = harness::mcp::detail::parse_message(text);
  if (!message) {
    require(!message.error().message.empty());
    (void)harness::mcp::detail::message_not_json("fuzz", text, message.error().message).describe();
    return 0;
  }
  if (message->is_object() && whole.id) {
    auto id = message->find("id");
    require(id != message->end());
  }
  return 0;
}
