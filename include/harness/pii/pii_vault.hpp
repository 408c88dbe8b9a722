// pii_vault: the per-task map between tokens such as "[EMAIL_1]" and the
// original values they stand for. Same value -> same token, for the life of the
// vault. A vault belongs to one task (one conversation) and travels with it, so
// it serialises to and from JSON for the store.
//
// Thread-safety: none. A vault is owned by one task and used by one thread at a
// time; the compiled pii_censor that fills it is what is shared.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <boost/unordered/unordered_flat_map.hpp>
#include <nlohmann/json_fwd.hpp>

#include "harness/core/error.hpp"

namespace harness::pii {

class pii_vault {
 public:
  pii_vault() = default;

  // The token for `value` ("[EMAIL_3]"), issuing the next number of `kind`
  // (upper-case, e.g. "EMAIL") when the value has none yet. A value keeps the
  // token it got first, whatever kind later detects it. The reference stays
  // valid for the life of the vault.
  const std::string& token_for(std::string_view kind, std::string_view value);

  // The original value of a token given without its brackets ("EMAIL_3"), or
  // nullptr when this vault did not issue it.
  const std::string* value_of(std::string_view token_body) const;

  // Position of the token in issue order (0-based), or npos when not issued.
  // tokenize() uses it to tell tokens issued before a call from later ones.
  std::size_t issue_index(std::string_view token_body) const;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  // Number of tokens issued.
  std::size_t size() const { return entries_.size(); }

  // {"version": 1, "entries": [{"token": "EMAIL_1", "value": "..."}]} in issue
  // order. A value that is not valid UTF-8 is written as "value_hex" instead,
  // so the round trip is exact for any bytes.
  nlohmann::json to_json() const;

  // The inverse of to_json(). Fails (code "invalid_vault") on a wrong shape, a
  // malformed token, or a token or value that appears twice.
  static result<pii_vault> from_json(const nlohmann::json& j);

 private:
  struct entry {
    std::string token;  // with brackets: "[EMAIL_1]"
    std::string value;
  };
  // Keys are views into entries_ (a deque, so they never move). A flat
  // table: tokenize() looks a value up for every detection, and the node-based
  // std::unordered_map cost several cache misses and a division per lookup.
  using index_map = boost::unordered_flat_map<std::string_view, std::size_t, std::hash<std::string_view>>;

  void add(std::string token, std::string value);

  std::deque<entry> entries_;  // deque: references handed out stay valid
  index_map by_value_;
  index_map by_body_;                                         // "EMAIL_1" -> index
  std::unordered_map<std::string, std::size_t> last_number_;  // per kind
};

// The token grammar, shared by the censor and the vault: "[" KIND "_" N "]"
// where KIND is [A-Z][A-Z0-9_]* and N is [1-9][0-9]*. Returns the body between
// the brackets when `text` starts with a token-shaped string, else empty.
std::string_view token_shaped_prefix(std::string_view text);

// Replaces every token that `vault` issued with its original value, in one
// pass (a restored value is never scanned again). Token-shaped text the vault
// did not issue passes through unchanged.
std::string detokenize(std::string_view text, const pii_vault& vault);

// The same for the tokens whose kind (the token's KIND: "EMAIL" of
// "[EMAIL_1]") `restore` accepts; the others stay as token text.
using kind_filter = std::function<bool(std::string_view kind)>;
std::string detokenize(std::string_view text, const pii_vault& vault, const kind_filter& restore);

}  // namespace harness::pii
