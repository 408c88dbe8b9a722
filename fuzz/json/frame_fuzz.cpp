// libFuzzer target for the host's reader of the sandbox's frames: bytes cut
// into lines under a small cap, each line parsed as a frame, each frame's
// fields read. For any bytes, in any pieces: no crash, no sanitizer report;
// every line is a frame or a protocol error, and a frame prints as one line.
#include <cstdint>

#include "frames.hpp"
#include "fuzz_input.hpp"
#include "harness/bridge/frame_lines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using harness::fuzz::require;
  harness::bridge::frame_lines lines(4096);
  for (auto piece : harness::fuzz::pieces(data, size)) {
    lines.append(piece);
    while (auto line = lines.next()) {
      if (!*line) continue;  // frame_too_large
      auto frame = harness::bridge::parse_frame(**line);
      if (!frame) {
        require(!frame.error().message.empty());
        continue;
      }
      require(frame->is_object());
      (void)harness::bridge::string_field(*frame, "exec");
      (void)harness::bridge::bool_field(*frame, "ok");
      (void)harness::bridge::size_field(*frame, "id");
      if (auto files = frame->find("files"); files != frame->end() && files->is_array()) {
        for (const auto& entry : *files) (void)harness::bridge::parse_file_change(entry);
      }
      auto printed = harness::bridge::dump_frame(*frame);
      require(printed.find('\n') == std::string::npos);
    }
  }
  return 0;
}
