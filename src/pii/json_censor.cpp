// Value-by-value censoring of JSON documents: the document is walked, never
// rewritten as text, so the result is always valid JSON.
#include <string>

#include "harness/pii/errors.hpp"
#include "harness/pii/pii_censor.hpp"

namespace harness::pii {
namespace {

constexpr int max_depth = 512;

error too_deep() {
  return make_error(pii::errc::json_too_deep, "JSON nests deeper than 512 levels",
                    "flatten the document before censoring it");
}

template <class StringFn, class NumberFn>
result<nlohmann::json> walk(const nlohmann::json& v, int depth, StringFn& on_string, NumberFn& on_number) {
  if (depth > max_depth) return too_deep();
  switch (v.type()) {
    case nlohmann::json::value_t::string:
      return nlohmann::json(on_string(v.get_ref<const std::string&>()));
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return on_number(v);
    case nlohmann::json::value_t::object: {
      nlohmann::json out = nlohmann::json::object();
      for (auto it = v.begin(); it != v.end(); ++it) {
        auto child = walk(it.value(), depth + 1, on_string, on_number);
        if (!child) return child.error();
        out[on_string(it.key())] = std::move(*child);
      }
      return out;
    }
    case nlohmann::json::value_t::array: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : v) {
        auto child = walk(item, depth + 1, on_string, on_number);
        if (!child) return child.error();
        out.push_back(std::move(*child));
      }
      return out;
    }
    default:
      return v;
  }
}

}  // namespace

result<nlohmann::json> pii_censor::tokenize_json(const nlohmann::json& value, pii_vault& vault,
                                                 token_policy policy) const {
  auto on_string = [&](const std::string& s) { return tokenize(s, vault, policy); };
  auto on_number = [&](const nlohmann::json& n) -> nlohmann::json {
    // Only integers long enough to be a phone or card number are worth a look.
    std::string digits = n.dump();
    if (digits.size() < 8) return n;
    std::vector<detection> found;
    pii_vault scratch;
    tokenize(digits, scratch, token_policy::escape_all, &found);
    if (found.size() == 1 && found[0].start == 0 && found[0].end == digits.size()) {
      return tokenize(digits, vault, policy);
    }
    return n;
  };
  return walk(value, 0, on_string, on_number);
}

result<nlohmann::json> detokenize_json(const nlohmann::json& value, const pii_vault& vault) {
  return detokenize_json(value, vault, nullptr);
}

result<nlohmann::json> detokenize_json(const nlohmann::json& value, const pii_vault& vault,
                                       const kind_filter& restore) {
  auto on_string = [&](const std::string& s) { return detokenize(s, vault, restore); };
  auto on_number = [](const nlohmann::json& n) { return n; };
  return walk(value, 0, on_string, on_number);
}

}  // namespace harness::pii
