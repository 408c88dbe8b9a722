// The protobuf wire format, as much of it as OTLP's trace messages use:
// varints, fixed64, fixed32, doubles and length-delimited fields (strings,
// bytes, nested messages). A nested message is written into its own writer
// and then added as bytes, which keeps the code as simple as the messages
// are small (a batch is at most a few hundred spans).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace harness::telemetry {

class proto_writer {
 public:
  enum wire_type : std::uint32_t { varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5 };

  void tag(std::uint32_t field, wire_type type) { raw_varint((static_cast<std::uint64_t>(field) << 3) | type); }

  // Fields equal to their default (0, "", false) are left out, as proto3 does.
  void uint(std::uint32_t field, std::uint64_t value) {
    if (value == 0) return;
    tag(field, varint);
    raw_varint(value);
  }
  void int64(std::uint32_t field, std::int64_t value) { uint(field, static_cast<std::uint64_t>(value)); }
  // A oneof member: written even when 0 (its presence is the information).
  void always_varint(std::uint32_t field, std::uint64_t value) {
    tag(field, varint);
    raw_varint(value);
  }
  void boolean(std::uint32_t field, bool value) { uint(field, value ? 1 : 0); }
  void fixed_64(std::uint32_t field, std::uint64_t value) {
    if (value == 0) return;
    tag(field, fixed64);
    raw_fixed(value, 8);
  }
  void fixed_32(std::uint32_t field, std::uint32_t value) {
    if (value == 0) return;
    tag(field, fixed32);
    raw_fixed(value, 4);
  }
  void float64(std::uint32_t field, double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    tag(field, fixed64);  // written even when 0: a oneof member must be present
    raw_fixed(bits, 8);
  }
  void bytes(std::uint32_t field, std::string_view value) {
    if (value.empty()) return;
    tag(field, length_delimited);
    raw_varint(value.size());
    out_.append(value);
  }
  // A oneof member or a nested message: written even when empty.
  void always_bytes(std::uint32_t field, std::string_view value) {
    tag(field, length_delimited);
    raw_varint(value.size());
    out_.append(value);
  }
  void message(std::uint32_t field, const proto_writer& nested) { always_bytes(field, nested.out_); }

  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void raw_varint(std::uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  void raw_fixed(std::uint64_t value, int width) {
    for (int i = 0; i < width; ++i) out_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }

  std::string out_;
};

}  // namespace harness::telemetry
