#include "harness/pii/pii_vault.hpp"
#include "harness/pii/errors.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "harness/core/utf8.hpp"

namespace harness::pii {
namespace {

bool is_upper_or_digit_or_underscore(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string to_hex(std::string_view s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

bool from_hex(std::string_view hex, std::string& out) {
  if (hex.size() % 2 != 0) return false;
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  out.clear();
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int h = val(hex[i]), l = val(hex[i + 1]);
    if (h < 0 || l < 0) return false;
    out.push_back(static_cast<char>(h * 16 + l));
  }
  return true;
}

}  // namespace

std::string_view token_shaped_prefix(std::string_view text) {
  // "[" [A-Z] [A-Z0-9_]* "_" [1-9] [0-9]* "]"
  if (text.size() < 5 || text[0] != '[' || text[1] < 'A' || text[1] > 'Z') return {};
  std::size_t i = 2;
  while (i < text.size() && is_upper_or_digit_or_underscore(text[i])) ++i;
  if (i >= text.size() || text[i] != ']') return {};
  std::string_view body = text.substr(1, i - 1);
  auto us = body.rfind('_');
  if (us == std::string_view::npos || us == 0 || us + 1 >= body.size()) return {};
  if (body[us + 1] < '1' || body[us + 1] > '9') return {};
  for (std::size_t k = us + 1; k < body.size(); ++k)
    if (body[k] < '0' || body[k] > '9') return {};
  return body;
}

void pii_vault::add(std::string token, std::string value) {
  std::size_t index = entries_.size();
  const entry& e = entries_.emplace_back(entry{std::move(token), std::move(value)});
  by_body_.emplace(std::string_view(e.token).substr(1, e.token.size() - 2), index);
  by_value_.emplace(e.value, index);
}

const std::string& pii_vault::token_for(std::string_view kind, std::string_view value) {
  if (auto it = by_value_.find(value); it != by_value_.end()) return entries_[it->second].token;
  auto counter = last_number_.find(std::string(kind));
  if (counter == last_number_.end()) counter = last_number_.emplace(std::string(kind), 0).first;
  std::size_t number = ++counter->second;
  std::string token;
  token.reserve(kind.size() + 24);
  token.push_back('[');
  token.append(kind);
  token.push_back('_');
  token.append(std::to_string(number));
  token.push_back(']');
  add(std::move(token), std::string(value));
  return entries_.back().token;
}

const std::string* pii_vault::value_of(std::string_view token_body) const {
  auto it = by_body_.find(token_body);
  return it == by_body_.end() ? nullptr : &entries_[it->second].value;
}

std::size_t pii_vault::issue_index(std::string_view token_body) const {
  auto it = by_body_.find(token_body);
  return it == by_body_.end() ? npos : it->second;
}

nlohmann::json pii_vault::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : entries_) {
    nlohmann::json item = {{"token", e.token.substr(1, e.token.size() - 2)}};
    if (core::utf8_valid(e.value)) {
      item["value"] = e.value;
    } else {
      item["value_hex"] = to_hex(e.value);
    }
    list.push_back(std::move(item));
  }
  return {{"version", 1}, {"entries", std::move(list)}};
}

result<pii_vault> pii_vault::from_json(const nlohmann::json& j) {
  auto bad = [](const std::string& why) {
    return make_error(pii::errc::invalid_vault, "PII vault JSON is malformed: " + why,
                      "pass what pii_vault::to_json() produced, unchanged");
  };
  if (!j.is_object() || !j.contains("entries") || !j["entries"].is_array()) return bad("expected {\"entries\": [...]}");
  if (j.contains("version") && j["version"] != 1) return bad("unsupported version");
  pii_vault vault;
  for (const auto& item : j["entries"]) {
    if (!item.is_object() || !item.contains("token") || !item["token"].is_string()) return bad("entry without a token");
    std::string body = item["token"].get<std::string>();
    std::string token = "[" + body + "]";
    if (token_shaped_prefix(token).size() != body.size()) return bad("malformed token '" + body + "'");
    std::string value;
    if (item.contains("value") && item["value"].is_string()) {
      value = item["value"].get<std::string>();
    } else if (item.contains("value_hex") && item["value_hex"].is_string()) {
      if (!from_hex(item["value_hex"].get<std::string>(), value)) return bad("bad value_hex for '" + body + "'");
    } else {
      return bad("entry '" + body + "' has no value");
    }
    if (vault.by_body_.contains(body)) return bad("token '" + body + "' appears twice");
    if (vault.by_value_.contains(value)) return bad("a value appears twice ('" + body + "')");
    auto us = body.rfind('_');
    std::size_t number = 0;
    auto [ptr, ec] = std::from_chars(body.data() + us + 1, body.data() + body.size(), number);
    if (ec != std::errc() || ptr != body.data() + body.size())
      return bad("token number out of range in '" + body + "'");
    auto& last = vault.last_number_[body.substr(0, us)];
    if (number > last) last = number;
    vault.add(std::move(token), std::move(value));
  }
  return vault;
}

std::string detokenize(std::string_view text, const pii_vault& vault) {
  return detokenize(text, vault, nullptr);
}

std::string detokenize(std::string_view text, const pii_vault& vault, const kind_filter& restore) {
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0, pos = 0;
  while ((pos = text.find('[', pos)) != std::string_view::npos) {
    std::string_view body = token_shaped_prefix(text.substr(pos));
    if (body.empty()) {
      ++pos;
      continue;
    }
    std::size_t end = pos + body.size() + 2;
    const std::string* value = vault.value_of(body);
    // The kind is the body up to its last '_' (the grammar's KIND may hold '_' itself).
    if (value && (!restore || restore(body.substr(0, body.rfind('_'))))) {
      out.append(text.substr(copied, pos - copied));
      out.append(*value);
      copied = end;
    }
    pos = end;
  }
  out.append(text.substr(copied));
  return out;
}

}  // namespace harness::pii
