// Reads the JSON-RPC "id" and "method" of a message that cannot be parsed: one
// over the size limit, one that is not valid JSON, one cut short when the server
// died. With them the client can tell which request such a message answered, so
// that request fails at once instead of waiting out its deadline.
//
// It streams with constant memory (a 1 GiB line costs no more than a short one)
// and is tolerant: it only tracks strings, nesting and the keys of the top-level
// object, so it still finds an id in front of the point where the JSON breaks.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace harness::mcp {

struct message_identity {
  // The top-level "id" (integer, string or null) once its value was seen whole.
  std::optional<nlohmann::json> id;
  // A top-level "method" key: a request or notification from the server, not an answer.
  bool has_method = false;
  // The first byte that is not blank is '{' or '[': it claims to be a JSON-RPC message
  // (anything else is stray output, such as a log line a server printed on stdout).
  bool looks_like_message = false;
  // The top-level object or batch was closed: everything it held was seen.
  bool complete = false;
  // Bytes fed (the size of the message as far as it arrived).
  std::size_t bytes = 0;
};

class message_identity_scanner {
 public:
  // Feeds the next bytes of the message.
  void feed(std::string_view bytes);
  const message_identity& identity() const { return identity_; }
  // Starts over for the next message.
  void reset() { *this = message_identity_scanner{}; }

 private:
  enum class phase { leading_blanks, object, batch, done };
  // Where we are among the top-level object's members.
  enum class slot { key_expected, in_key, colon_expected, value_expected, in_value };

  void on_byte(char c);
  void start_value();
  void capture(char c);
  void finish_id();

  message_identity identity_;
  phase phase_ = phase::leading_blanks;
  slot slot_ = slot::key_expected;
  int depth_ = 0;  // 1 inside the top-level object or batch
  bool in_string_ = false;
  bool escaped_ = false;
  std::string key_;  // the top-level key being read (its first bytes)
  bool capturing_id_ = false;
  std::string id_text_;  // the raw text of the "id" value
};

// The identity of a message held whole in memory.
message_identity identify_message(std::string_view text);

}  // namespace harness::mcp
