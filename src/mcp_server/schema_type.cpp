#include "schema_type.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "harness/mcp_server/ts_signature.hpp"
#include "ts_text.hpp"

namespace harness::mcp_server {
namespace {

using nlohmann::json;

constexpr std::size_t max_comment_chars = 80;
constexpr std::size_t max_default_chars = 40;
constexpr std::size_t max_literal_bytes = 128;  // a longer string literal prints as `string`
constexpr std::size_t max_ref_name_bytes = 64;
// Bounds the work, not the output: a schema whose parts all print nothing
// (allOf of refs to allOfs of `{}`...) would otherwise be walked exponentially.
constexpr std::size_t max_schema_nodes = 20000;

// The name as it is if it is an identifier, else as a string literal (JSON's
// escapes are valid in TypeScript; invalid UTF-8 becomes U+FFFD).
std::string property_key(const std::string& name) {
  if (name.size() > max_name_bytes)
    return json_text(name.substr(0, char_boundary(name, max_name_bytes)) + std::string(ellipsis));
  return is_identifier(name) ? name : json_text(name);
}

// The value a local JSON pointer ("" or "/a/b~1c/0") names in `root`, or null.
const json* resolve_pointer(const json& root, std::string_view pointer) {
  const json* at = &root;
  while (!pointer.empty()) {
    if (pointer[0] != '/') return nullptr;
    pointer.remove_prefix(1);
    const std::size_t slash = std::min(pointer.find('/'), pointer.size());
    std::string token;
    for (std::size_t i = 0; i < slash; ++i) {
      if (pointer[i] == '~' && i + 1 < slash && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[++i] == '0' ? '~' : '/';
      } else {
        token += pointer[i];
      }
    }
    pointer.remove_prefix(slash);
    if (at->is_object()) {
      const auto it = at->find(token);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array() && !token.empty() && token.size() < 10 &&
               std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      const std::size_t index = std::stoul(token);
      if (index >= at->size()) return nullptr;
      at = &(*at)[index];
    } else {
      return nullptr;
    }
  }
  return at;
}

// How tightly a type binds: `A | B` needs parentheses as an array element or
// in an intersection, `A & B` only as an array element.
enum class precedence { union_type, intersection, atom };

struct ts_type {
  std::string text;
  precedence prec = precedence::atom;
};

std::string as_operand(const ts_type& t, precedence needed) {
  return t.prec >= needed ? t.text : "(" + t.text + ")";
}

ts_type union_of(const std::vector<ts_type>& members) {
  std::vector<std::string> texts;
  std::set<std::string> seen;
  for (const auto& m : members) {
    if (m.text == "unknown") return {"unknown"};
    if (m.text != "never" && seen.insert(m.text).second) texts.push_back(m.text);
  }
  if (texts.empty()) return {"never"};
  if (texts.size() == 1) {
    for (const auto& m : members) {
      if (m.text == texts[0]) return m;
    }
  }
  std::string out;
  for (const auto& t : texts) out += (out.empty() ? "" : " | ") + t;
  return {out, precedence::union_type};
}

ts_type intersection_of(const std::vector<ts_type>& members) {
  std::vector<const ts_type*> kept;
  std::set<std::string> seen;
  for (const auto& m : members) {
    if (m.text == "never") return {"never"};
    if (m.text != "unknown" && seen.insert(m.text).second) kept.push_back(&m);
  }
  if (kept.empty()) return {"unknown"};
  if (kept.size() == 1) return *kept[0];
  std::string out;
  for (const ts_type* t : kept) out += (out.empty() ? "" : " & ") + as_operand(*t, precedence::intersection);
  return {out, precedence::intersection};
}

ts_type literal(const json& value) {
  if (value.is_string() && value.get_ref<const std::string&>().size() > max_literal_bytes) return {"string"};
  if (value.is_structured() || value.is_binary() || value.is_discarded()) return {"unknown"};
  return {json_text(value)};
}

// Renders one schema document; $refs resolve against its root.
class schema_renderer {
 public:
  schema_renderer(const json& root, bool comments, std::size_t budget)
      : root_(root), comments_(comments), budget_(budget), expanding_{&root} {}

  ts_type render(const json& schema, std::size_t depth) {
    ++nodes_;
    if (exhausted()) return cut_marker();
    if (depth > max_schema_depth) return charged({"unknown"});
    if (schema.is_boolean()) return charged({schema.get<bool>() ? "unknown" : "never"});
    if (!schema.is_object()) return charged({"unknown"});
    std::vector<ts_type> parts;  // all of them hold: an intersection
    if (const json* ref = member(schema, "$ref"))
      parts.push_back(ref->is_string() ? render_ref(*ref, depth) : unknown());
    static constexpr std::array<const char*, 7> base_keywords = {
        "const", "enum", "type", "properties", "additionalProperties", "items", "prefixItems"};
    if (std::any_of(base_keywords.begin(), base_keywords.end(), [&](const char* k) { return member(schema, k); })) {
      parts.push_back(render_base(schema, depth));
    }
    if (const json* any = member(schema, "anyOf")) parts.push_back(render_list(*any, false, depth));
    if (const json* one = member(schema, "oneOf")) parts.push_back(render_list(*one, false, depth));
    if (const json* all = member(schema, "allOf")) parts.push_back(render_list(*all, true, depth));
    ts_type out = parts.empty() ? unknown() : intersection_of(parts);
    const json* nullable = member(schema, "nullable");
    if (nullable != nullptr && nullable->is_boolean() && nullable->get<bool>())
      out = union_of({out, charged({"null"})});
    return out;
  }

 private:
  bool exhausted() const { return spent_ >= budget_ || nodes_ >= max_schema_nodes; }
  // A member that took the output past the budget is left out, unless it is the
  // first (it stopped at the budget itself): so the output overshoots by at most
  // the closing brackets.
  bool overflowed(bool first) const { return !first && spent_ > budget_; }
  ts_type charged(ts_type t) {
    spent_ += t.text.size();
    return t;
  }
  ts_type unknown() { return charged({"unknown"}); }
  static ts_type cut_marker() { return {std::string(ellipsis)}; }

  ts_type render_base(const json& schema, std::size_t depth) {
    if (const json* value = member(schema, "const")) return charged(literal(*value));
    if (const json* values = member(schema, "enum")) {
      if (!values->is_array()) return unknown();
      std::vector<ts_type> members;
      for (const auto& value : *values) {
        if (exhausted()) {
          members.push_back(cut_marker());
          break;
        }
        ts_type member_type = charged(literal(value));
        spent_ += 3;  // " | "
        if (overflowed(members.empty())) {
          members.push_back(cut_marker());
          break;
        }
        members.push_back(std::move(member_type));
      }
      return union_of(members);
    }
    const json* type = member(schema, "type");
    if (type == nullptr) {
      const bool object = member(schema, "properties") || member(schema, "additionalProperties");
      return object ? render_object(schema, depth) : render_array(schema, depth);
    }
    if (type->is_string()) return render_typed(schema, type->get_ref<const std::string&>(), depth);
    if (!type->is_array() || type->empty()) return unknown();
    std::vector<ts_type> members;
    for (const auto& t : *type) {
      members.push_back(t.is_string() ? render_typed(schema, t.get_ref<const std::string&>(), depth) : unknown());
    }
    return union_of(members);
  }

  ts_type render_typed(const json& schema, const std::string& type, std::size_t depth) {
    if (type == "string" || type == "boolean" || type == "null") return charged({type});
    if (type == "number" || type == "integer") return charged({"number"});
    if (type == "object") return render_object(schema, depth);
    if (type == "array") return render_array(schema, depth);
    return unknown();
  }

  ts_type render_object(const json& schema, std::size_t depth) {
    const json* properties = member(schema, "properties");
    if (properties != nullptr && !properties->is_object()) return unknown();
    std::vector<std::string> required;
    std::set<std::string> required_set;
    if (const json* names = member(schema, "required"); names != nullptr && names->is_array()) {
      for (const auto& name : *names) {
        if (name.is_string() && required_set.insert(name.get<std::string>()).second) {
          required.push_back(name.get<std::string>());
        }
      }
    }
    std::vector<std::string> members;
    bool cut = false;
    auto add = [&](const std::string& name, bool optional) {
      if (exhausted()) {
        cut = true;
        return;
      }
      const json* schema_of = properties != nullptr ? member(*properties, name.c_str()) : nullptr;
      const std::string key = property_key(name) + (optional ? "?: " : ": ");
      const std::string comment = comments_ && schema_of != nullptr ? property_comment(*schema_of) : "";
      spent_ += key.size() + comment.size() + 2;  // "; "
      const ts_type type = schema_of != nullptr ? render(*schema_of, depth + 1) : unknown();
      if (overflowed(members.empty())) {
        cut = true;
        return;
      }
      members.push_back(key + type.text + comment);
    };
    for (auto it = required.begin(); it != required.end() && !cut; ++it) add(*it, false);
    if (properties != nullptr) {
      for (auto it = properties->begin(); it != properties->end() && !cut; ++it) {
        if (!required_set.contains(it.key())) add(it.key(), true);
      }
    }
    std::optional<ts_type> index;  // the type of additional properties, when they are allowed
    bool closed = false;
    if (const json* additional = member(schema, "additionalProperties")) {
      if (additional->is_object()) index = render(*additional, depth + 1);
      if (additional->is_boolean() && additional->get<bool>()) index = charged({"unknown"});
      closed = additional->is_boolean() && !additional->get<bool>();
    }
    if (members.empty() && !cut) {
      return charged({"Record<string, " + (index ? index->text : closed ? "never" : "unknown") + ">"});
    }
    if (cut) members.emplace_back(ellipsis);
    if (index && !cut) members.push_back("[key: string]: " + index->text);
    std::string out = "{ ";
    for (std::size_t i = 0; i < members.size(); ++i) out += (i == 0 ? "" : "; ") + members[i];
    return {out + " }"};
  }

  ts_type render_array(const json& schema, std::size_t depth) {
    const json* prefix = member(schema, "prefixItems");
    const json* items = member(schema, "items");
    const json* tuple = prefix != nullptr && prefix->is_array() ? prefix
                        : items != nullptr && items->is_array() ? items
                                                                : nullptr;
    if (tuple == nullptr) {
      if (items == nullptr || !(items->is_object() || items->is_boolean())) return charged({"unknown[]"});
      return {as_operand(render(*items, depth + 1), precedence::atom) + "[]"};
    }
    std::vector<std::string> members;
    for (const auto& item : *tuple) {
      if (exhausted()) {
        members.emplace_back(ellipsis);
        break;
      }
      std::string text = render(item, depth + 1).text;
      spent_ += 2;  // ", "
      if (overflowed(members.empty())) {
        members.emplace_back(ellipsis);
        break;
      }
      members.push_back(std::move(text));
    }
    // The items after the tuple's: `items` beside prefixItems (2020-12), additionalItems beside an items array
    // (draft-07).
    const json* rest = tuple == prefix ? items : member(schema, "additionalItems");
    if (rest != nullptr && (rest->is_object() || (rest->is_boolean() && rest->get<bool>())) && !exhausted()) {
      members.push_back("..." + as_operand(render(*rest, depth + 1), precedence::atom) + "[]");
    }
    std::string out = "[";
    for (std::size_t i = 0; i < members.size(); ++i) out += (i == 0 ? "" : ", ") + members[i];
    return {out + "]"};
  }

  ts_type render_list(const json& list, bool intersection, std::size_t depth) {
    if (!list.is_array()) return unknown();
    std::vector<ts_type> members;
    for (const auto& schema : list) {
      if (exhausted()) {
        members.push_back(cut_marker());
        break;
      }
      ts_type member_type = render(schema, depth + 1);
      spent_ += 3;  // " | " or " & "
      if (overflowed(members.empty())) {
        members.push_back(cut_marker());
        break;
      }
      members.push_back(std::move(member_type));
    }
    return intersection ? intersection_of(members) : union_of(members);
  }

  ts_type render_ref(const json& ref, std::size_t depth) {
    const auto& text = ref.get_ref<const std::string&>();
    if (text.empty() || text[0] != '#') return unknown();  // remote references are not fetched
    const std::string_view pointer = std::string_view(text).substr(1);
    const json* target = resolve_pointer(root_, pointer);
    if (target == nullptr) return unknown();
    if (std::find(expanding_.begin(), expanding_.end(), target) != expanding_.end()) {
      const std::string name = replace_odd_chars(pointer.substr(pointer.rfind('/') + 1), "");
      return charged({is_identifier(name) ? name.substr(0, max_ref_name_bytes) : "unknown"});
    }
    // Not a level deeper: a reference nests nothing in the output, and the guard and the node cap bound it.
    expanding_.push_back(target);
    ts_type out = render(*target, depth);
    expanding_.pop_back();
    return out;
  }

  // " /* description; default: value */", or "" when the schema has neither.
  std::string property_comment(const json& schema) {
    const std::string* description = string_member(schema, "description");
    if (const std::string* ref = string_member(schema, "$ref"); description == nullptr && ref != nullptr) {
      const json* target = ref->starts_with('#') ? resolve_pointer(root_, std::string_view(*ref).substr(1)) : nullptr;
      if (target != nullptr) description = string_member(*target, "description");
    }
    std::string text;
    if (description != nullptr) {
      text = cut_words_to_chars(clean_text(*description, 4 * max_comment_chars + 8, true), max_comment_chars);
    }
    if (const json* value = member(schema, "default")) {
      text += (text.empty() ? "" : "; ") + std::string("default: ") + short_json(*value, max_default_chars);
    }
    return text.empty() ? "" : " /* " + escape_comment_end(std::move(text)) + " */";
  }

  const json& root_;
  const bool comments_;
  const std::size_t budget_;
  std::size_t spent_ = 0;  // bytes of output so far, roughly
  std::size_t nodes_ = 0;
  std::vector<const json*> expanding_;  // the root and the $ref targets being inlined: the cycle guard
};

}  // namespace

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const std::string* string_member(const json& object, const char* key) {
  const json* value = member(object, key);
  return value != nullptr && value->is_string() ? &value->get_ref<const std::string&>() : nullptr;
}

std::string schema_type(const json* schema, bool comments, std::size_t budget) {
  if (schema == nullptr) return "unknown";
  schema_renderer renderer(*schema, comments, budget);
  return renderer.render(*schema, 0).text;
}

}  // namespace harness::mcp_server
