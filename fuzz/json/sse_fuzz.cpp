// libFuzzer target for the Server-Sent Events parser of the Streamable HTTP
// transport, with a small event cap. For any bytes, in any pieces: no crash,
// no sanitizer report; no event handed on is larger than the cap; each
// event's data goes through the bounded message parse as the client's would.
#include <cstdint>

#include "fuzz_input.hpp"
#include "message_errors.hpp"
#include "sse_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using harness::fuzz::require;
  constexpr std::size_t cap = 2048;
  harness::mcp::sse_parser parser(
      cap,
      [](const harness::mcp::sse_event& event) {
        require(event.data.size() <= cap);
        (void)harness::mcp::detail::parse_message(event.data);
      },
      [](const harness::mcp::message_identity&) {});
  for (auto piece : harness::fuzz::pieces(data, size)) parser.feed(piece);
  (void)parser.mid_event();
  return 0;
}
