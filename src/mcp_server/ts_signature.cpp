#include "harness/mcp_server/ts_signature.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <vector>

#include "schema_type.hpp"
#include "ts_text.hpp"

namespace harness::mcp_server {
namespace {

using nlohmann::json;

constexpr std::size_t max_description_bytes = 2048;  // the rest of the budget is the signature's
constexpr std::size_t doc_columns = 100;

// Words that cannot name a function in TypeScript.
bool is_reserved_word(std::string_view s) {
  static constexpr std::string_view words[] = {
      "await",     "break",  "case",     "catch",  "class",      "const",   "continue",  "debugger",
      "default",   "delete", "do",       "else",   "enum",       "export",  "extends",   "false",
      "finally",   "for",    "function", "if",     "implements", "import",  "in",        "instanceof",
      "interface", "let",    "new",      "null",   "package",    "private", "protected", "public",
      "return",    "static", "super",    "switch", "this",       "throw",   "true",      "try",
      "typeof",    "var",    "void",     "while",  "with",       "yield"};
  return std::find(std::begin(words), std::end(words), s) != std::end(words);
}

std::string function_identifier(std::string_view name) {
  std::string out = replace_odd_chars(name, "");
  if (out.empty()) return "unnamed_tool";
  if (out[0] >= '0' && out[0] <= '9') out.insert(0, "_");
  if (is_reserved_word(out)) out += '_';
  return out;
}

std::string doc_comment(const std::string& text) {
  const std::vector<std::string> lines = wrap(text, doc_columns - 3);  // " * "
  if (lines.empty()) return "";
  if (lines.size() == 1 && char_count(lines[0]) + 7 <= doc_columns) return "/** " + lines[0] + " */\n";
  std::string out = "/**\n";
  for (const auto& line : lines) out += line.empty() ? " *\n" : " * " + line + "\n";
  return out + " */\n";
}

std::string tool_name(const json& tool) {
  const std::string* name = string_member(tool, "name");
  return name != nullptr ? *name : "";
}

}  // namespace

std::string ts_declaration(const json& tool) {
  const std::string name = tool_name(tool);
  const std::string identifier = function_identifier(name);
  std::string about;
  if (identifier != name && !name.empty()) {
    about = "Call it as callMCPTool(" + json_text(name.substr(0, char_boundary(name, max_name_bytes))) + ", args).\n";
  }
  if (const std::string* description = string_member(tool, "description")) {
    const std::string text = clean_text(*description, max_description_bytes + 4, false);
    const bool longer = description->size() > max_description_bytes + 4 || text.size() > max_description_bytes;
    about += longer ? cut_words(text, char_boundary(text, max_description_bytes)) : text;
  }
  const std::string doc = doc_comment(escape_comment_end(std::move(about)));
  std::string head = "declare function " + identifier + "(args: ";
  const std::size_t frame = doc.size() + head.size() + std::string_view("): Promise<>;").size() + 64;
  const std::size_t room = max_declaration_bytes > frame ? max_declaration_bytes - frame : 0;
  // The result type gets at most a third, so that a huge outputSchema cannot crowd out the arguments.
  const std::string result = schema_type(member(tool, "outputSchema"), true, room / 3);
  const std::string args =
      schema_type(member(tool, "inputSchema"), true, room > result.size() ? room - result.size() : 0);
  std::string out = doc + head + args + "): Promise<" + result + ">;";
  if (out.size() <= max_declaration_bytes) return out;
  return cut_type(out, char_boundary(out, max_declaration_bytes - 4));
}

std::string ts_signature_line(const json& tool, std::size_t max_chars) {
  std::string name = replace_odd_chars(tool_name(tool), ".-");
  if (name.empty()) name = "unnamed_tool";
  const std::string args = schema_type(member(tool, "inputSchema"), false, max_declaration_bytes);
  const std::string result = schema_type(member(tool, "outputSchema"), false, max_declaration_bytes);
  const std::string line = name + "(args: " + args + "): " + result;
  if (char_count(line) <= max_chars) return line;
  if (max_chars < 2) return max_chars == 0 ? "" : std::string(ellipsis);
  return cut_type(line, offset_after_chars(line, max_chars - 2));
}

}  // namespace harness::mcp_server
