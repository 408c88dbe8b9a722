// libFuzzer target for the strict request-body parser. For any bytes: no
// crash, no sanitizer report, no recursion past the depth limit; what it
// accepts, core::parse_json accepts too and reads the same; what it accepts
// prints and reads back unchanged.
//
//   fuzz/json/run.sh 60     # build with clang and fuzz every target
#include <cstdint>
#include <string_view>

#include "fuzz_input.hpp"
#include "harness/core/json_parse.hpp"
#include "strict_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using harness::fuzz::require;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto strict = harness::http::parse_strict_json(text);
  auto lenient = harness::core::parse_json(text);
  if (!strict) {
    require(!strict.error().message.empty());
    return 0;
  }
  require(!lenient.is_discarded());
  require(*strict == lenient);
  auto again = harness::core::parse_json(strict->dump());
  require(again == *strict);
  return 0;
}
