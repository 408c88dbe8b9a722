#include "tool_result.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/mcp/errors.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace harness::mcp {
namespace {

using nlohmann::json;

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (std::isalnum(c)) {
      // camelCase boundary: "readFile" -> "read", "file".
      if (std::isupper(c) && !word.empty() && std::islower(static_cast<unsigned char>(word.back()))) flush();
      word.push_back(static_cast<char>(std::tolower(c)));
    } else {
      flush();
    }
  }
  flush();
  return words;
}

// 1 for an exact word, 0.5 for a prefix (query word at least 3 chars), else 0.
double best_match(const std::string& query_word, const std::vector<std::string>& words) {
  double best = 0;
  for (const auto& w : words) {
    if (w == query_word) return 1;
    if (query_word.size() >= 3 && w.rfind(query_word, 0) == 0) best = 0.5;
  }
  return best;
}

std::string text_of(const json& content) {
  std::string text;
  if (!content.is_array()) return text;
  for (const auto& item : content) {
    if (item.is_object() && item.value("type", "") == "text" && item.contains("text") && item["text"].is_string()) {
      if (!text.empty()) text += "\n";
      text += item["text"].get<std::string>();
    }
  }
  return text;
}

// Whether `text` could be a JSON document, by its first character: most tool
// texts are prose, and a failed parse costs more than the whole call's own
// JSON work on the host (the parser builds its error message).
bool may_be_json(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return false;
  const char c = text[first];
  return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n';
}

}  // namespace

result<json> tool_result_value(json call_tool_result, const std::string& server) {
  if (!call_tool_result.is_object()) {
    return make_error(mcp::errc::bad_response, "tools/call result is not an object");
  }
  auto content_at = call_tool_result.find("content");
  json content = content_at != call_tool_result.end() ? std::move(*content_at) : json::array();
  if (auto error = call_tool_result.find("isError");
      error != call_tool_result.end() && error->is_boolean() && error->get<bool>()) {
    std::string text = text_of(content);
    if (text.empty()) text = "the tool reported an error without text";
    return make_error(mcp::errc::tool_error, text);
  }
  if (auto structured = call_tool_result.find("structuredContent");
      structured != call_tool_result.end() && !structured->is_null()) {
    return std::move(*structured);
  }
  if (!content.is_array()) return make_error(mcp::errc::bad_response, "tools/call result has no content array");
  json items = json::array();
  for (auto& item : content) {
    if (!item.is_object()) {
      items.push_back(std::move(item));
      continue;
    }
    auto type = item.find("type");
    const bool typed = type != item.end() && type->is_string();
    auto text = item.find("text");
    if (typed && *type == "text" && text != item.end() && text->is_string()) {
      const auto& words = text->get_ref<const std::string&>();
      json parsed = may_be_json(words) ? core::parse_json(words) : json(json::value_t::discarded);
      items.push_back(parsed.is_discarded() ? std::move(*text) : std::move(parsed));
    } else if (typed && *type == "resource_link" && !server.empty()) {
      item["server"] = server;
      items.push_back(std::move(item));
    } else {
      items.push_back(std::move(item));
    }
  }
  if (items.size() == 1) return std::move(items[0]);
  return items;
}

result<json> resource_contents_value(const json& read_result) {
  if (!read_result.is_object() || !read_result.contains("contents") || !read_result["contents"].is_array()) {
    return make_error(mcp::errc::bad_response, "resources/read result has no contents array");
  }
  const auto& contents = read_result["contents"];
  if (contents.size() == 1) return contents[0];
  return contents;
}

std::vector<ranked_tool> rank_tools(const std::vector<ranked_tool>& tools, const std::string& query) {
  const auto query_words = words_of(query);
  std::vector<ranked_tool> out;
  for (const auto& tool : tools) {
    ranked_tool ranked = tool;
    if (!query_words.empty()) {
      const auto name_words = words_of(tool.name);
      const auto description_words = words_of(tool.description);
      for (const auto& q : query_words)
        ranked.score += 3 * best_match(q, name_words) + best_match(q, description_words);
      if (ranked.score == 0) continue;
    }
    out.push_back(std::move(ranked));
  }
  std::stable_sort(out.begin(), out.end(), [](const ranked_tool& a, const ranked_tool& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.name < b.name;
  });
  return out;
}

std::string short_description(const std::string& description, std::size_t max_chars) {
  std::size_t end = description.find('\n');
  if (end == std::string::npos) end = description.size();
  const std::size_t sentence = description.find(". ");
  if (sentence != std::string::npos && sentence + 1 < end) end = sentence + 1;
  std::string out = description.substr(0, end);
  if (out.size() > max_chars) {
    out.resize(max_chars);
    // Do not cut a UTF-8 sequence in half.
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80)) out.pop_back();
    out += "...";
  }
  return out;
}

}  // namespace harness::mcp
