#include "harness/mcp_server/py_signature.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "harness/mcp_server/ts_signature.hpp"
#include "schema_type.hpp"
#include "ts_text.hpp"

namespace harness::mcp_server {
namespace {

using nlohmann::json;

constexpr std::size_t max_classes = 24;   // nested objects past this are dict[str, Any]
constexpr std::size_t max_work = 20000;   // schemas walked, as the TypeScript generator
constexpr std::size_t max_literals = 20;  // enum values shown; more read as the base type
constexpr std::size_t max_description_bytes = 2048;
constexpr std::size_t doc_columns = 96;

bool is_keyword(std::string_view s) {
  static constexpr std::string_view words[] = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return std::find(std::begin(words), std::end(words), s) != std::end(words);
}

bool is_python_name(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9') || is_keyword(s)) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// "fs__read_file" -> "FsReadFile": a class name from a tool or property name.
std::string camel(std::string_view hint) {
  std::string out;
  bool upper = true;
  for (char c : hint.substr(0, max_name_bytes)) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      upper = true;
      continue;
    }
    out += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  if (out.empty()) out = "Object";
  if (out[0] >= '0' && out[0] <= '9') out.insert(0, "T");
  return out;
}

// A scalar as a Python literal; nullopt for what Literal[] cannot hold.
std::optional<std::string> literal(const json& v) {
  if (v.is_string()) return json_text(v.get<std::string>().substr(0, 200));  // a JSON string is a Python one
  if (v.is_boolean()) return std::string(v.get<bool>() ? "True" : "False");
  if (v.is_null()) return std::string("None");
  if (v.is_number_integer() || v.is_number_unsigned()) return json_text(v);
  return std::nullopt;
}

std::string join_union(std::vector<std::string> parts) {
  std::vector<std::string> unique;
  for (auto& p : parts) {
    if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(std::move(p));
  }
  if (unique.empty()) return "Any";
  if (std::find(unique.begin(), unique.end(), "Any") != unique.end()) return "Any";
  std::string out;
  for (const auto& p : unique) out += (out.empty() ? "" : " | ") + p;
  return out;
}

// One-line comment text of a property: its description and default.
std::string property_comment(const json& schema) {
  std::string out;
  if (const std::string* d = string_member(schema, "description")) {
    out = cut_words_to_chars(clean_text(*d, 400, true), 80);
  }
  if (const json* def = member(schema, "default")) {
    out += (out.empty() ? "default " : " (default ") + short_json(*def, 40) + (out.empty() ? "" : ")");
  }
  return out;
}

class py_writer {
 public:
  explicit py_writer(const json& root) : root_(root) {}

  std::string type(const json* schema, const std::string& hint, std::size_t depth) {
    if (schema == nullptr || !schema->is_object() || ++work_ > max_work || depth > max_schema_depth) return "Any";
    const json& s = *schema;
    if (const std::string* ref = string_member(s, "$ref")) return ref_type(*ref, hint, depth);
    std::string out = plain_type(s, hint, depth);
    if (const json* nullable = member(s, "nullable"); nullable && nullable->is_boolean() && nullable->get<bool>()) {
      out = join_union({out, "None"});
    }
    return out;
  }

  const std::vector<std::string>& classes() const { return classes_; }

 private:
  std::string ref_type(const std::string& ref, const std::string& hint, std::size_t depth) {
    if (ref.empty() || ref[0] != '#') return "Any";
    if (std::find(inlining_.begin(), inlining_.end(), ref) != inlining_.end()) return "Any";  // recursive
    const json* target = nullptr;
    try {
      json::json_pointer pointer(ref.substr(1));
      if (root_.contains(pointer)) target = &root_.at(pointer);
    } catch (const std::exception&) {
      return "Any";  // a malformed pointer
    }
    if (target == nullptr) return "Any";
    inlining_.push_back(ref);
    const std::string name = ref.substr(ref.rfind('/') + 1);
    std::string out = type(target, name.empty() ? hint : name, depth + 1);
    inlining_.pop_back();
    return out;
  }

  std::string plain_type(const json& s, const std::string& hint, std::size_t depth) {
    if (const json* c = member(s, "const")) {
      if (auto lit = literal(*c)) return *lit == "None" ? "None" : "Literal[" + *lit + "]";
    }
    if (const json* e = member(s, "enum"); e && e->is_array() && !e->empty() && e->size() <= max_literals) {
      std::vector<std::string> values;
      for (const auto& v : *e) {
        auto lit = literal(v);
        if (!lit) return "Any";
        values.push_back(*lit);
      }
      std::string out = "Literal[";
      for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + values[i];
      return out + "]";
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      if (const json* members = member(s, key); members && members->is_array() && !members->empty()) {
        std::vector<std::string> parts;
        for (const auto& m : *members) parts.push_back(type(&m, hint, depth + 1));
        return join_union(std::move(parts));
      }
    }
    if (const json* all = member(s, "allOf"); all && all->is_array() && !all->empty()) {
      return type(&(*all)[0], hint, depth + 1);
    }
    const json* t = member(s, "type");
    if (t && t->is_array()) {
      std::vector<std::string> parts;
      for (const auto& one : *t)
        parts.push_back(one.is_string() ? named_type(one.get<std::string>(), s, hint, depth) : "Any");
      return join_union(std::move(parts));
    }
    if (t && t->is_string()) return named_type(t->get<std::string>(), s, hint, depth);
    if (member(s, "properties") != nullptr) return object_type(s, hint, depth);
    return "Any";
  }

  std::string named_type(const std::string& name, const json& s, const std::string& hint, std::size_t depth) {
    if (name == "string") return "str";
    if (name == "integer") return "int";
    if (name == "number") return "float";
    if (name == "boolean") return "bool";
    if (name == "null") return "None";
    if (name == "object") return object_type(s, hint, depth);
    if (name == "array") return array_type(s, hint, depth);
    return "Any";
  }

  std::string array_type(const json& s, const std::string& hint, std::size_t depth) {
    const json* prefix = member(s, "prefixItems");
    if (prefix == nullptr) {
      if (const json* items = member(s, "items"); items && items->is_array()) prefix = items;
    }
    if (prefix != nullptr && prefix->is_array() && !prefix->empty()) {
      std::string out = "tuple[";
      for (std::size_t i = 0; i < prefix->size(); ++i) out += (i ? ", " : "") + type(&(*prefix)[i], hint, depth + 1);
      return out + "]";
    }
    return "list[" + type(member(s, "items"), hint + " item", depth + 1) + "]";
  }

  std::string object_type(const json& s, const std::string& hint, std::size_t depth) {
    const json* properties = member(s, "properties");
    if (properties == nullptr || !properties->is_object() || properties->empty() || classes_.size() >= max_classes) {
      const json* extra = member(s, "additionalProperties");
      return "dict[str, " + (extra && extra->is_object() ? type(extra, hint, depth + 1) : std::string("Any")) + "]";
    }
    std::vector<std::string> required;
    if (const json* r = member(s, "required"); r && r->is_array()) {
      for (const auto& k : *r) {
        if (k.is_string() && properties->contains(k.get<std::string>())) required.push_back(k.get<std::string>());
      }
    }
    const std::string name = class_name(hint);
    // Required keys first, in `required` order, then the others.
    std::vector<std::string> keys = required;
    for (const auto& [key, ignored] : properties->items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    bool functional = false;
    std::vector<std::string> fields;
    for (const auto& key : keys) {
      const json& property = (*properties)[key];
      std::string field_type = type(&property, key, depth + 1);
      if (std::find(required.begin(), required.end(), key) == required.end()) {
        field_type = "NotRequired[" + field_type + "]";
      }
      const std::string shown = key.substr(0, char_boundary(key, max_name_bytes));
      functional = functional || !is_python_name(shown);
      const std::string comment = property.is_object() ? property_comment(property) : std::string();
      fields.push_back(shown + "\n" + field_type + "\n" + comment);
    }
    std::string text;
    if (functional) {
      // Keys that are not Python names: the functional form takes any string.
      text = name + " = TypedDict(" + json_text(name) + ", {\n";
      for (const auto& f : fields) {
        auto [key, field_type, comment] = split_field(f);
        text += "    " + json_text(key) + ": " + field_type + "," + (comment.empty() ? "" : "  # " + comment) + "\n";
      }
      text += "})";
    } else {
      text = "class " + name + "(TypedDict):\n";
      for (const auto& f : fields) {
        auto [key, field_type, comment] = split_field(f);
        text += "    " + key + ": " + field_type + (comment.empty() ? "" : "  # " + comment) + "\n";
      }
      text.pop_back();
    }
    classes_.push_back(std::move(text));
    return name;
  }

  static std::tuple<std::string, std::string, std::string> split_field(const std::string& f) {
    const auto a = f.find('\n');
    const auto b = f.find('\n', a + 1);
    return {f.substr(0, a), f.substr(a + 1, b - a - 1), f.substr(b + 1)};
  }

  std::string class_name(const std::string& hint) {
    const std::string base = camel(hint);
    std::string name = base;
    for (int n = 2; used_.count(name) > 0; ++n) name = base + std::to_string(n);
    used_.insert(name);
    return name;
  }

  const json& root_;
  std::vector<std::string> classes_;  // nested ones first: a class is added after its fields' types
  std::set<std::string> used_;
  std::vector<std::string> inlining_;  // $refs being inlined, against recursion
  std::size_t work_ = 0;
};

std::string function_name(std::string_view name) {
  std::string out = replace_odd_chars(name, "");
  std::replace(out.begin(), out.end(), '$', '_');
  if (out.empty()) return "unnamed_tool";
  if (out[0] >= '0' && out[0] <= '9') out.insert(0, "_");
  if (is_keyword(out)) out += '_';
  return out;
}

// The description as a docstring's lines. Backslashes are doubled (no
// escape sequence by accident), and a run of three quotes, or quotes at the
// very end, are escaped: nothing in it can end the docstring early.
std::string docstring(const std::string& text) {
  std::string escaped;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\\') {
      escaped += "\\\\";
      ++i;
      continue;
    }
    if (text[i] != '"') {
      escaped += text[i++];
      continue;
    }
    std::size_t run = 0;
    while (i + run < text.size() && text[i + run] == '"') ++run;
    const bool risky = run >= 3 || i + run == text.size();
    for (std::size_t k = 0; k < run; ++k) escaped += risky ? "\\\"" : "\"";
    i += run;
  }
  const std::vector<std::string> lines = wrap(escaped, doc_columns - 4);
  if (lines.empty()) return "";
  std::string out = "    \"\"\"";
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n    " : "") + lines[i];
  return out + "\"\"\"\n";
}

}  // namespace

std::string py_declaration(const json& tool) {
  const std::string* raw_name = tool.is_object() ? string_member(tool, "name") : nullptr;
  const std::string name = raw_name != nullptr ? raw_name->substr(0, char_boundary(*raw_name, max_name_bytes)) : "";
  const std::string identifier = function_name(name);
  std::string about;
  if (identifier != name && !name.empty()) about = "Call it as call_mcp_tool(" + json_text(name) + ", args).\n";
  if (const std::string* description = tool.is_object() ? string_member(tool, "description") : nullptr) {
    const std::string text = clean_text(*description, max_description_bytes + 4, false);
    about += text.size() > max_description_bytes ? cut_words(text, char_boundary(text, max_description_bytes)) : text;
  }
  const json empty = json::object();
  const json* input = tool.is_object() ? member(tool, "inputSchema") : nullptr;
  const json* output = tool.is_object() ? member(tool, "outputSchema") : nullptr;
  // $refs resolve against the schema they are in, as in TypeScript.
  py_writer in_writer(input != nullptr ? *input : empty);
  const std::string args = input != nullptr ? in_writer.type(input, identifier + " args", 0) : "dict[str, Any]";
  py_writer out_writer(output != nullptr ? *output : empty);
  const std::string result = output != nullptr ? out_writer.type(output, identifier + " result", 0) : "Any";
  std::string out;
  for (const auto* w : {&in_writer, &out_writer}) {
    for (const auto& c : w->classes()) out += c + "\n\n";
  }
  out += "async def " + identifier + "(args: " + args + ") -> " + result + ":\n";
  out += about.empty() ? "    ...\n" : docstring(about);
  if (out.size() <= max_declaration_bytes) return out;
  const std::size_t cut = out.rfind('\n', char_boundary(out, max_declaration_bytes - 8));
  return out.substr(0, cut == std::string::npos ? 0 : cut) + "\n# …\n";
}

}  // namespace harness::mcp_server
