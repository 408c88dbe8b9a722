// pii_censor: finds personal data (e-mail addresses, phone numbers, US SSNs,
// payment card numbers, IPv4 and IPv6 addresses, and custom named patterns) in
// text and replaces each value with a stable token from a pii_vault.
//
// Detection: every enabled pattern is compiled into one leftmost-longest RE2
// alternation. With only built-in detectors on, a prefilter names the
// positions where a value may start and the alternation runs anchored there;
// with custom patterns its DFA scans the bytes once. Either way each candidate
// span then goes through its kind's validator (Luhn, SSN area rules, octet
// ranges, ...) that throws out look-alikes.
//
// Token safety: text in the input that is already shaped like a token
// ("[EMAIL_1]") is itself replaced by a token of kind TOKEN, so in tokenized
// text every token-shaped string is one the vault issued and detokenize()
// restores the input byte for byte (see docs/architecture/pii.md).
//
// Thread-safety: a built pii_censor is immutable; share one (const) across all
// tasks and threads. Each call takes the caller's vault, which must not be used
// by two threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/pii/pii_config.hpp"
#include "harness/pii/pii_vault.hpp"

namespace harness::pii {

// What tokenize() does with token-shaped text in its input.
enum class token_policy {
  // Text from outside the token domain (tool results, the user's task): every
  // token-shaped string is escaped to a fresh TOKEN token, so it can never be
  // mistaken for one of ours.
  escape_all,
  // Text produced inside the token domain (sandbox output, LLM replies): tokens
  // the vault issued before this call pass through; others are escaped.
  keep_issued,
};

// One value found in the input. Offsets are bytes into the input.
struct detection {
  std::string kind;  // detector name: "email", "phone", "ssn", "card", "ipv4", "ipv6", a custom name, or "token"
  std::size_t start = 0;
  std::size_t end = 0;
  std::string token;  // "[EMAIL_1]"; empty from detect()
};

class pii_censor {
 public:
  ~pii_censor();
  pii_censor(pii_censor&&) noexcept;
  pii_censor& operator=(pii_censor&&) noexcept;

  // Every value found, in input order, without touching a vault. Token-shaped
  // literals are reported with kind "token".
  std::vector<detection> detect(std::string_view text) const;

  // `text` with every detected value replaced by its vault token. When
  // `detections` is given, it receives what was replaced (kind, span, token).
  // Never fails: any bytes (including invalid UTF-8) are accepted and bytes
  // outside detections are copied unchanged.
  std::string tokenize(std::string_view text, pii_vault& vault, token_policy policy = token_policy::escape_all,
                       std::vector<detection>* detections = nullptr) const;

  // Same as tokenize(), appending to `out`: a caller that keeps one buffer
  // per worker reuses its capacity instead of allocating per call.
  void tokenize_into(std::string& out, std::string_view text, pii_vault& vault,
                     token_policy policy = token_policy::escape_all,
                     std::vector<detection>* detections = nullptr) const;

  // Censors a JSON document value by value: every string (object keys too) is
  // tokenized; an integer whose digits are exactly one detected value (a phone
  // or card number stored as a number) becomes its token string. The result is
  // valid JSON. Fails (code "json_too_deep") past 512 levels of nesting.
  result<nlohmann::json> tokenize_json(const nlohmann::json& value, pii_vault& vault,
                                       token_policy policy = token_policy::escape_all) const;

  // The names of the detectors that are on, in priority order.
  std::vector<std::string> detector_names() const;

 private:
  friend class pii_censor_builder;
  struct impl;
  explicit pii_censor(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

// Restores every string (and key) in a tokenized JSON document. Tokens the
// vault did not issue stay as they are. Fails past 512 levels of nesting.
result<nlohmann::json> detokenize_json(const nlohmann::json& value, const pii_vault& vault);
// Only the tokens of kinds `restore` accepts (pii_vault.hpp's detokenize).
result<nlohmann::json> detokenize_json(const nlohmann::json& value, const pii_vault& vault, const kind_filter& restore);

// Collects the configuration of a censor, then compiles it once.
class pii_censor_builder {
 public:
  // All built-in detectors on, no custom patterns.
  pii_censor_builder();

  // Built-in detectors and custom patterns from a loaded config. Fails like add_pattern().
  static result<pii_censor_builder> from_config(const pii_config& config);

  // Adds a custom detector: `name` ([A-Za-z][A-Za-z0-9_]{0,31}, not a built-in
  // name or "token") becomes the token kind in upper case (custom_id ->
  // [CUSTOM_ID_1]); `pattern` is RE2 syntax. Fails (code "invalid_pii_pattern")
  // with the name and RE2's message when the pattern does not compile, matches
  // the empty string, or the name is taken or malformed. Custom patterns win
  // over built-ins when both match the same span.
  status add_pattern(std::string_view name, std::string_view pattern);

  // Turns a built-in detector ("email", "phone", "ssn", "card", "ipv4",
  // "ipv6") or a custom one on or off. Fails on an unknown name.
  status enable(std::string_view name, bool on);

  // Compiles the enabled detectors. Fails only if RE2 rejects the combined
  // program (e.g. it exceeds the memory budget).
  result<pii_censor> build() const;

 private:
  struct custom {
    std::string name;
    std::string pattern;
    bool enabled = true;
  };
  std::vector<custom> custom_;
  std::vector<std::string> disabled_builtins_;
};

}  // namespace harness::pii
