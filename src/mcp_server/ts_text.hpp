// Text helpers of the TypeScript generator: whatever it copies from a schema
// (descriptions, names, defaults) comes out as valid, printable UTF-8, cut to
// a size at a clean boundary.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace harness::mcp_server {

// Marks every cut.
inline constexpr std::string_view ellipsis = "…";
// The MCP limit for tool names; longer names and property keys are cut here.
inline constexpr std::size_t max_name_bytes = 128;

// The first `max_in` bytes of `s` as valid UTF-8: invalid bytes become U+FFFD,
// control and line-separator characters a space; newlines stay unless
// `one_line`, which also collapses runs of spaces and trims both ends.
// Reading only a prefix bounds the work on a 1 MB description.
std::string clean_text(std::string_view s, std::size_t max_in, bool one_line);

// Characters (code points) of valid UTF-8 `s`.
std::size_t char_count(std::string_view s);
// Byte offset after the first `n` characters of valid UTF-8 `s` (s.size() if fewer).
std::size_t offset_after_chars(std::string_view s, std::size_t n);
// The largest offset <= `limit` that starts a character of `s`.
std::size_t char_boundary(std::string_view s, std::size_t limit);

// Prose cut to its first `end` bytes (a character boundary) at a word
// boundary, "…" appended: at most end + 3 bytes.
std::string cut_words(std::string_view s, std::size_t end);
// `s` as it is if it has at most `max_chars` characters, else cut_words to that many.
std::string cut_words_to_chars(std::string_view s, std::size_t max_chars);
// Type text cut to its first `end` bytes (a character boundary), preferably
// after a member (a space after ; , | & or an opening bracket), never inside a
// /* comment */, " …" appended: at most end + 4 bytes, 2 characters more.
std::string cut_type(std::string_view s, std::size_t end);

// `*/` as `*\/`, so that the text cannot end the comment it is put in.
std::string escape_comment_end(std::string s);

// Compact JSON; invalid UTF-8 in strings becomes U+FFFD (dump() would throw).
std::string json_text(const nlohmann::json& value);
// Compact JSON of an untrusted value (a default), at most `max_chars`
// characters, and never walking a huge or deep document.
std::string short_json(const nlohmann::json& value, std::size_t max_chars);

bool is_identifier_char(char c);
// A-Z a-z _ $ then those and 0-9.
bool is_identifier(std::string_view s);
// The first max_name_bytes of `name`, each character outside A-Z a-z 0-9 _ $
// (and `extra`) as `_`.
std::string replace_odd_chars(std::string_view name, std::string_view extra);

// Valid UTF-8 `text` as lines of at most `width` characters (a longer word
// stays whole), breaking at spaces; newlines stay, with one blank line at most
// in a row and none at either end.
std::vector<std::string> wrap(std::string_view text, std::size_t width);

}  // namespace harness::mcp_server
