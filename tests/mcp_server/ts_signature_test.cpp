// TypeScript declarations from MCP tool schemas: each schema rule, the comments
// and caps, hostile schemas (wrong types, deep nesting, cycles, huge text), and
// the real tool lists of @modelcontextprotocol/server-filesystem and
// server-memory (tests/mcp_server/data/, as their tools/list returned them).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "harness/mcp_server/ts_signature.hpp"

namespace harness::mcp_server {
namespace {

using nlohmann::json;

json tool_with(json input) {
  return {{"name", "t"}, {"inputSchema", std::move(input)}};
}

std::string between(const std::string& text, const std::string& prefix, const std::string& suffix) {
  if (!text.starts_with(prefix) || !text.ends_with(suffix) || text.size() < prefix.size() + suffix.size()) {
    ADD_FAILURE() << "unexpected shape: " << text;
    return text;
  }
  return text.substr(prefix.size(), text.size() - prefix.size() - suffix.size());
}

// The args type as the signature line prints it: no comments.
std::string args_type(const json& input) {
  return between(ts_signature_line(tool_with(input), 100000), "t(args: ", "): unknown");
}
std::string args_type(const char* input) {
  return args_type(json::parse(input));
}

// The args type as ts_declaration prints it: with comments.
std::string declared_args(const json& input) {
  return between(ts_declaration(tool_with(input)), "declare function t(args: ", "): Promise<unknown>;");
}
std::string declared_args(const char* input) {
  return declared_args(json::parse(input));
}

std::size_t chars(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool valid_utf8(const std::string& s) {
  try {
    (void)json(s).dump();  // the strict handler throws on invalid UTF-8
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

TEST(TsSignature, PrimitiveTypes) {
  EXPECT_EQ(args_type(R"({"type": "string"})"), "string");
  EXPECT_EQ(args_type(R"({"type": "number"})"), "number");
  EXPECT_EQ(args_type(R"({"type": "integer"})"), "number");
  EXPECT_EQ(args_type(R"({"type": "boolean"})"), "boolean");
  EXPECT_EQ(args_type(R"({"type": "null"})"), "null");
}

TEST(TsSignature, EnumIsAUnionOfLiterals) {
  EXPECT_EQ(args_type(R"({"enum": ["a", "b", 3, true, null]})"), R"("a" | "b" | 3 | true | null)");
  EXPECT_EQ(args_type(R"({"type": "string", "enum": ["x\"y", "x\"y"]})"), R"("x\"y")");
  EXPECT_EQ(args_type(R"({"enum": [1.5, -2]})"), "1.5 | -2");
  EXPECT_EQ(args_type(R"({"enum": []})"), "never");
  EXPECT_EQ(args_type(R"({"enum": ["a", {"b": 1}]})"), "unknown");  // no literal type for an object
}

TEST(TsSignature, ConstIsALiteral) {
  EXPECT_EQ(args_type(R"({"const": "resource"})"), R"("resource")");
  EXPECT_EQ(args_type(R"({"type": "number", "const": 2})"), "2");
  // A literal too long to be worth printing says what it is.
  EXPECT_EQ(args_type(json{{"const", std::string(200, 'x')}}), "string");
}

TEST(TsSignature, Arrays) {
  EXPECT_EQ(args_type(R"({"type": "array", "items": {"type": "string"}})"), "string[]");
  EXPECT_EQ(args_type(R"({"type": "array", "items": {"type": "array", "items": {"type": "integer"}}})"), "number[][]");
  EXPECT_EQ(args_type(R"({"type": "array", "items": {"type": ["string", "number"]}})"), "(string | number)[]");
  EXPECT_EQ(args_type(R"({"type": "array"})"), "unknown[]");
  EXPECT_EQ(args_type(R"({"items": {"type": "boolean"}})"), "boolean[]");  // the type is implied
}

TEST(TsSignature, Tuples) {
  EXPECT_EQ(args_type(R"({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]})"),
            "[string, number]");
  EXPECT_EQ(args_type(R"({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "boolean"}})"),
            "[string, ...boolean[]]");
  EXPECT_EQ(args_type(R"({"type": "array", "prefixItems": [{"type": "string"}], "items": false})"), "[string]");
  // draft-07: an items array, additionalItems for the rest.
  EXPECT_EQ(args_type(R"({"type": "array", "items": [{"type": "string"}, {"const": 1}]})"), "[string, 1]");
  EXPECT_EQ(args_type(R"({"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "null"}})"),
            "[string, ...null[]]");
}

TEST(TsSignature, RequiredAndOptionalProperties) {
  // Required ones first, in `required` order; then the optional ones.
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {
                "a": {"type": "string"}, "b": {"type": "number"}, "c": {"type": "boolean"}, "d": {"type": "null"}},
                "required": ["c", "a", "c"]})"),
            "{ c: boolean; a: string; b?: number; d?: null }");
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {"a": {"type": "string"}}})"), "{ a?: string }");
  // Required but not described: any value.
  EXPECT_EQ(args_type(R"({"type": "object", "required": ["id"]})"), "{ id: unknown }");
  EXPECT_EQ(args_type(R"({"properties": {"a": {"type": "string"}}})"), "{ a?: string }");  // the type is implied
}

TEST(TsSignature, AdditionalPropertiesBecomeAnIndexSignature) {
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true})"),
            "{ a?: string; [key: string]: unknown }");
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {"a": {"type": "number"}},
                          "additionalProperties": {"type": "number"}})"),
            "{ a?: number; [key: string]: number }");
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false})"),
            "{ a?: string }");
}

TEST(TsSignature, ObjectWithoutPropertiesIsARecord) {
  EXPECT_EQ(args_type(R"({"type": "object"})"), "Record<string, unknown>");
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {}})"), "Record<string, unknown>");
  EXPECT_EQ(args_type(R"({"type": "object", "additionalProperties": {"type": "string"}})"), "Record<string, string>");
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {}, "additionalProperties": false})"),
            "Record<string, never>");
}

TEST(TsSignature, TypeArrayIsAUnion) {
  EXPECT_EQ(args_type(R"({"type": ["string", "null"]})"), "string | null");
  EXPECT_EQ(args_type(R"({"type": ["integer", "number"]})"), "number");
  EXPECT_EQ(args_type(R"({"type": ["object", "null"], "properties": {"a": {"type": "string"}}})"),
            "{ a?: string } | null");
}

TEST(TsSignature, AnyOfAndOneOfAreUnions) {
  EXPECT_EQ(args_type(R"({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]})"),
            "string | string[]");
  EXPECT_EQ(args_type(R"({"oneOf": [{"const": "a"}, {"const": "b"}, {"type": "null"}]})"), R"("a" | "b" | null)");
  // A member that only constrains (no type of its own) is any value, and so is the union.
  EXPECT_EQ(args_type(R"({"anyOf": [{"type": "string"}, {"minLength": 1}]})"), "unknown");
  EXPECT_EQ(args_type(R"({"anyOf": [{"type": "string"}, false]})"), "string");
}

TEST(TsSignature, AllOfIsAnIntersection) {
  EXPECT_EQ(args_type(R"({"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "number"}}}]})"),
            "{ a: string } & { b?: number }");
  EXPECT_EQ(args_type(R"({"allOf": [{"type": ["string", "number"]}, {"properties": {"a": {"type": "string"}}}]})"),
            "(string | number) & { a?: string }");
  // Members that only constrain add nothing.
  EXPECT_EQ(args_type(R"({"allOf": [{"type": "string"}, {"minLength": 1}]})"), "string");
  // A type beside anyOf holds as well: zod's "one of these required" adds nothing to the object.
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                          "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})"),
            "{ a?: string; b?: string }");
}

TEST(TsSignature, RefToDefsIsInlined) {
  EXPECT_EQ(args_type(R"({"$defs": {"Point": {"type": "object", "required": ["x", "y"],
                            "properties": {"x": {"type": "number"}, "y": {"type": "number"}}}},
                          "type": "object", "required": ["from", "to"],
                          "properties": {"from": {"$ref": "#/$defs/Point"}, "to": {"$ref": "#/$defs/Point"}}})"),
            "{ from: { x: number; y: number }; to: { x: number; y: number } }");
  EXPECT_EQ(args_type(R"({"definitions": {"Id": {"type": "integer"}}, "type": "array",
                          "items": {"$ref": "#/definitions/Id"}})"),
            "number[]");
  // JSON pointer escapes, and the pointers into properties that zod-to-json-schema writes for a reused schema.
  EXPECT_EQ(args_type(R"({"$defs": {"a/b~c": {"type": "string"}}, "$ref": "#/$defs/a~1b~0c"})"), "string");
  EXPECT_EQ(
      args_type(R"({"type": "object", "properties": {"a": {"enum": ["x", "y"]}, "b": {"$ref": "#/properties/a"}}})"),
      R"({ a?: "x" | "y"; b?: "x" | "y" })");
  EXPECT_EQ(args_type(R"({"$defs": [{"type": "boolean"}], "$ref": "#/$defs/0"})"), "boolean");
}

TEST(TsSignature, RefCyclePrintsTheDefName) {
  EXPECT_EQ(args_type(R"({"$defs": {"Node": {"type": "object", "required": ["name"], "properties": {
                            "name": {"type": "string"},
                            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
                          "$ref": "#/$defs/Node"})"),
            "{ name: string; children?: Node[] }");
  EXPECT_EQ(args_type(R"({"definitions": {
                            "tree-a": {"type": "object", "properties": {"b": {"$ref": "#/definitions/tree-b"}}},
                            "tree-b": {"type": "object", "properties": {"a": {"$ref": "#/definitions/tree-a"}}}},
                          "$ref": "#/definitions/tree-a"})"),
            "{ b?: { a?: tree_a } }");
  // A reference to the whole schema has no name to print.
  EXPECT_EQ(args_type(R"({"type": "object", "properties": {"self": {"$ref": "#"}}})"), "{ self?: unknown }");
}

TEST(TsSignature, UnresolvableRefIsUnknown) {
  EXPECT_EQ(args_type(R"({"$ref": "#/$defs/Missing"})"), "unknown");
  EXPECT_EQ(args_type(R"({"$ref": "https://example.com/schema.json"})"), "unknown");  // never fetched
  EXPECT_EQ(args_type(R"({"$ref": "other.json#/x"})"), "unknown");
  EXPECT_EQ(args_type(R"({"$ref": "#$defs"})"), "unknown");
  EXPECT_EQ(args_type(R"({"$defs": [1], "$ref": "#/$defs/7"})"), "unknown");
}

TEST(TsSignature, NullableAddsNull) {
  EXPECT_EQ(args_type(R"({"type": "string", "nullable": true})"), "string | null");
  EXPECT_EQ(args_type(R"({"enum": ["a", "b"], "nullable": true})"), R"("a" | "b" | null)");
  EXPECT_EQ(args_type(R"({"type": "null", "nullable": true})"), "null");
  EXPECT_EQ(args_type(R"({"type": "string", "nullable": false})"), "string");
}

TEST(TsSignature, MissingOrUnknownSchemaIsUnknown) {
  EXPECT_EQ(args_type(R"({})"), "unknown");
  EXPECT_EQ(args_type(R"({"description": "anything"})"), "unknown");
  EXPECT_EQ(args_type(R"({"type": "date"})"), "unknown");
  EXPECT_EQ(args_type(R"(true)"), "unknown");
  EXPECT_EQ(args_type(R"(false)"), "never");
  EXPECT_EQ(ts_declaration({{"name", "t"}}), "declare function t(args: unknown): Promise<unknown>;");
  EXPECT_EQ(ts_signature_line({{"name", "t"}}), "t(args: unknown): unknown");
}

TEST(TsSignature, NonIdentifierPropertyNamesAreQuoted) {
  EXPECT_EQ(
      args_type(R"({"type": "object", "required": ["content-type", "2fa", "$ok_1", "a b", "q\"", ""],
                          "properties": {}})"),
      R"({ "content-type": unknown; "2fa": unknown; $ok_1: unknown; "a b": unknown; "q\"": unknown; "": unknown })");
  EXPECT_EQ(args_type(R"({"type": "object", "required": ["line\nbreak"]})"), R"({ "line\nbreak": unknown })");
}

TEST(TsSignature, PropertyDescriptionsBecomeComments) {
  const char* schema = R"({"type": "object", "required": ["path"], "properties": {
      "path": {"type": "string", "description": "Where the file is"},
      "head": {"type": "number", "description": "  Only the first\n N   lines  "},
      "nested": {"type": "object", "properties": {"x": {"type": "string", "description": "inner"}}}}})";
  EXPECT_EQ(declared_args(schema),
            "{ path: string /* Where the file is */; head?: number /* Only the first N lines */; "
            "nested?: { x?: string /* inner */ } }");
  EXPECT_EQ(args_type(schema), "{ path: string; head?: number; nested?: { x?: string } }");
  // The description of a referenced definition, when the property has none of its own.
  EXPECT_EQ(declared_args(R"({"$defs": {"Id": {"type": "string", "description": "An id"}}, "type": "object",
                              "properties": {"id": {"$ref": "#/$defs/Id"}}})"),
            "{ id?: string /* An id */ }");
}

TEST(TsSignature, DefaultGoesIntoTheComment) {
  EXPECT_EQ(declared_args(R"({"type": "object", "properties": {
                "dryRun": {"type": "boolean", "default": false, "description": "Preview only"},
                "exclude": {"type": "array", "items": {"type": "string"}, "default": []},
                "sort": {"enum": ["name", "size"], "default": "name"}}})"),
            R"({ dryRun?: boolean /* Preview only; default: false */; exclude?: string[] /* default: [] */; )"
            R"(sort?: "name" | "size" /* default: "name" */ })");
  // A big default is cut.
  EXPECT_EQ(
      declared_args(json{{"type", "object"}, {"properties", {{"o", {{"default", {{"key", std::string(100, 'v')}}}}}}}}),
      "{ o?: unknown /* default: {\"key\":\"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv… */ }");
}

TEST(TsSignature, CommentsCannotEndEarly) {
  const json tool = {{"name", "t"},
                     {"description", "globs like **/*.ts */"},
                     {"inputSchema",
                      {{"type", "object"},
                       {"properties", {{"p", {{"type", "string"}, {"description", "a */ b"}, {"default", "*/"}}}}}}}};
  EXPECT_EQ(ts_declaration(tool),
            "/** globs like **\\/*.ts *\\/ */\n"
            "declare function t(args: { p?: string /* a *\\/ b; default: \"*\\/\" */ }): Promise<unknown>;");
}

TEST(TsSignature, LongPropertyDescriptionIsCutToOneShortLine) {
  std::string description;
  for (int i = 0; i < 40; ++i) description += "word" + std::to_string(i) + (i % 7 == 6 ? "\n" : " ");
  const std::string args = declared_args(
      json{{"type", "object"}, {"properties", {{"a", {{"type", "string"}, {"description", description}}}}}});
  EXPECT_EQ(args, "{ a?: string /* word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11… */ }");
}

TEST(TsSignature, DescriptionIsWrappedAtOneHundredColumns) {
  // 93 characters fit on the line of "/** " and " */".
  const std::string fits(93, 'x');
  EXPECT_EQ(ts_declaration({{"name", "t"}, {"description", fits}}),
            "/** " + fits + " */\ndeclare function t(args: unknown): Promise<unknown>;");
  std::string words;
  for (int i = 0; i < 60; ++i) words += (i ? " " : "") + std::string("word") + std::to_string(i);
  const std::string declaration = ts_declaration({{"name", "t"}, {"description", words + "\n\n\n\nNext paragraph."}});
  std::istringstream lines(declaration);
  std::string line, joined;
  std::getline(lines, line);
  EXPECT_EQ(line, "/**");
  while (std::getline(lines, line) && line != " */") {
    EXPECT_LE(chars(line), 100u) << line;
    ASSERT_TRUE(line.starts_with(" *")) << line;
    joined += line == " *" ? "\n" : (joined.empty() || joined.back() == '\n' ? "" : " ") + line.substr(3);
  }
  EXPECT_EQ(joined, words + "\nNext paragraph.");  // blank lines become one
  std::getline(lines, line);
  EXPECT_EQ(line, "declare function t(args: unknown): Promise<unknown>;");
}

TEST(TsSignature, NoDescriptionNoDocComment) {
  EXPECT_EQ(ts_declaration({{"name", "t"}, {"description", " \n\t "}}),
            "declare function t(args: unknown): Promise<unknown>;");
}

TEST(TsSignature, PromiseTypeComesFromOutputSchema) {
  const json tool = {{"name", "fs__read"},
                     {"inputSchema", {{"type", "object"}}},
                     {"outputSchema",
                      {{"type", "object"},
                       {"required", {"content"}},
                       {"properties", {{"content", {{"type", "string"}, {"description", "the text"}}}}}}}};
  EXPECT_EQ(ts_declaration(tool),
            "declare function fs__read(args: Record<string, unknown>): Promise<{ content: string /* the text */ }>;");
  EXPECT_EQ(ts_signature_line(tool), "fs__read(args: Record<string, unknown>): { content: string }");
}

TEST(TsSignature, NameThatIsNotAnIdentifier) {
  EXPECT_EQ(ts_declaration({{"name", "my-server__get.item"}, {"description", "Gets it."}}),
            "/**\n * Call it as callMCPTool(\"my-server__get.item\", args).\n * Gets it.\n */\n"
            "declare function my_server__get_item(args: unknown): Promise<unknown>;");
  EXPECT_EQ(ts_signature_line({{"name", "my-server__get.item"}}), "my-server__get.item(args: unknown): unknown");
  EXPECT_EQ(
      ts_declaration({{"name", "delete"}}),
      "/** Call it as callMCPTool(\"delete\", args). */\ndeclare function delete_(args: unknown): Promise<unknown>;");
  EXPECT_TRUE(ts_declaration({{"name", "3d"}}).ends_with("declare function _3d(args: unknown): Promise<unknown>;"));
  EXPECT_EQ(ts_signature_line({{"name", "a b/c*/"}}), "a_b_c__(args: unknown): unknown");
}

TEST(TsSignature, SignatureLineIsCutAtMaxChars) {
  const json tool = tool_with(json::parse(R"({"type": "object", "required": ["alpha", "beta", "gamma", "delta"],
      "properties": {"alpha": {"type": "string"}, "beta": {"type": "string"}, "gamma": {"type": "string"},
                     "delta": {"type": "string", "description": "not in the line"}}})"));
  EXPECT_EQ(ts_signature_line(tool), "t(args: { alpha: string; beta: string; gamma: string; delta: string }): unknown");
  EXPECT_EQ(ts_signature_line(tool, 40), "t(args: { alpha: string; beta: string; …");
  EXPECT_EQ(ts_signature_line(tool, 1), "…");
  EXPECT_EQ(ts_signature_line(tool, 0), "");
  // Characters, not bytes.
  const json wide = tool_with(json{{"enum", {"ééééé", "ééééé2"}}});
  EXPECT_EQ(ts_signature_line(wide, 36), "t(args: \"ééééé\" | \"ééééé2\"): unknown");
  EXPECT_EQ(ts_signature_line(wide, 35), "t(args: \"ééééé\" | …");
}

// ---- Hostile schemas: wrong types anywhere, huge and deep documents.

TEST(TsSignatureHostile, WrongTypesRenderAsUnknown) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {R"("object")", "unknown"},
      {R"(42)", "unknown"},
      {R"(null)", "unknown"},
      {R"([{"type": "string"}])", "unknown"},
      {R"({"type": "object", "properties": [1, 2]})", "unknown"},
      {R"({"type": "object", "properties": "a"})", "unknown"},
      {R"({"type": "object", "properties": {"a": 5, "b": null, "c": "string"}})",
       "{ a?: unknown; b?: unknown; c?: unknown }"},
      {R"({"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"})", "{ a?: string }"},
      {R"({"type": "object", "properties": {"a": {"type": "string"}}, "required": [1, null, "a", {"x": 1}, ["a"]]})",
       "{ a: string }"},
      {R"({"type": "object", "additionalProperties": 7})", "Record<string, unknown>"},
      {R"({"type": 5})", "unknown"},
      {R"({"type": []})", "unknown"},
      {R"({"type": ["string", 5]})", "unknown"},
      {R"({"type": {"name": "string"}})", "unknown"},
      {R"({"enum": "a"})", "unknown"},
      {R"({"enum": {"a": 1}})", "unknown"},
      {R"({"anyOf": {"type": "string"}})", "unknown"},
      {R"({"oneOf": "string"})", "unknown"},
      {R"({"allOf": 1})", "unknown"},
      {R"({"anyOf": [1, "x", null]})", "unknown"},
      {R"({"$ref": 5})", "unknown"},
      {R"({"$ref": ""})", "unknown"},
      {R"({"$ref": "#/"})", "unknown"},
      {R"({"$ref": "#/a/b/c/d", "a": 1})", "unknown"},
      {R"({"type": "array", "items": "string"})", "unknown[]"},
      {R"({"type": "array", "prefixItems": 3})", "unknown[]"},
      {R"({"type": "array", "prefixItems": [], "items": 3})", "[]"},
      {R"({"type": "array", "items": [], "additionalItems": "x"})", "[]"},
      {R"({"type": "string", "nullable": "yes"})", "string"},
      {R"({"type": "object", "properties": {"a": {"type": "string", "description": 5, "default": {"x": [1, [2]]}}}})",
       "{ a?: string }"},
  };
  for (const auto& [schema, expected] : cases) {
    EXPECT_EQ(args_type(schema), expected) << schema;
    EXPECT_NO_THROW((void)ts_declaration(tool_with(json::parse(schema)))) << schema;
  }
}

TEST(TsSignatureHostile, ToolThatIsNotAnObject) {
  for (const json& tool : {json(), json("fs__read"), json::array({1, 2}),
                           json{{"name", 5}, {"description", {"x"}}, {"inputSchema", "x"}, {"outputSchema", 3}}}) {
    EXPECT_EQ(ts_declaration(tool), "declare function unnamed_tool(args: unknown): Promise<unknown>;") << tool;
    EXPECT_EQ(ts_signature_line(tool), "unnamed_tool(args: unknown): unknown") << tool;
  }
}

TEST(TsSignatureHostile, ThousandDeepNestingStopsAtTheDepthCap) {
  json objects = {{"type", "string"}};
  json arrays = {{"type", "string"}};
  json unions = {{"type", "string"}};
  for (int i = 0; i < 1000; ++i) {
    objects = {{"type", "object"}, {"required", {"a"}}, {"properties", {{"a", std::move(objects)}}}};
    arrays = {{"type", "array"}, {"items", std::move(arrays)}};
    unions = {{"anyOf", {std::move(unions), {{"type", "null"}}}}};
  }
  // The root is level 0; what lies below level max_schema_depth is unknown.
  std::string expected_objects, expected_arrays = "unknown";
  for (std::size_t i = 0; i <= max_schema_depth; ++i) expected_objects += "{ a: ";
  expected_objects += "unknown";
  for (std::size_t i = 0; i <= max_schema_depth; ++i) expected_objects += " }";
  for (std::size_t i = 0; i <= max_schema_depth; ++i) expected_arrays += "[]";
  EXPECT_EQ(args_type(objects), expected_objects);
  EXPECT_EQ(args_type(arrays), expected_arrays);
  EXPECT_EQ(args_type(unions), "unknown");
  EXPECT_LE(ts_declaration(tool_with(objects)).size(), max_declaration_bytes);
}

TEST(TsSignatureHostile, RefChainsAndCyclesStayBounded) {
  // Each definition refers to the next fifty times: inlining them all would walk 50^8 schemas.
  json defs;
  for (int i = 0; i < 20; ++i) {
    json all = json::array();
    for (int k = 0; k < 50; ++k) all.push_back({{"$ref", "#/$defs/d" + std::to_string(i + 1)}});
    defs["d" + std::to_string(i)] = {
        {"type", "object"}, {"properties", {{"x", {{"type", "string"}}}}}, {"allOf", std::move(all)}};
  }
  const json schema = {{"$defs", defs}, {"$ref", "#/$defs/d0"}};
  const std::string declaration = ts_declaration(tool_with(schema));
  EXPECT_LE(declaration.size(), max_declaration_bytes);
  EXPECT_TRUE(declaration.starts_with("declare function t(args: { x?: string }")) << declaration;
  // A cycle through every definition prints the name where it closes.
  json ring;
  for (int i = 0; i < 5; ++i) {
    ring["r" + std::to_string(i)] = {{"type", "array"},
                                     {"items", {{"$ref", "#/$defs/r" + std::to_string((i + 1) % 5)}}}};
  }
  EXPECT_EQ(args_type(json{{"$defs", ring}, {"$ref", "#/$defs/r0"}}), "r0[][][][][]");
}

TEST(TsSignatureHostile, MegabyteDescriptionIsCut) {
  std::string huge;
  while (huge.size() < 1'000'000) huge += "lorem ipsum dolor sit amet ";
  const json tool = {{"name", "t"},
                     {"description", huge},
                     {"inputSchema",
                      {{"type", "object"},
                       {"required", {"a"}},
                       {"properties", {{"a", {{"type", "string"}, {"description", huge}}}}}}}};
  const std::string declaration = ts_declaration(tool);
  EXPECT_LE(declaration.size(), 2400u);  // the description's 2 KiB, wrapped, and the signature
  EXPECT_TRUE(
      declaration.ends_with("…\n */\ndeclare function t(args: { a: string /* lorem ipsum dolor sit amet lorem "
                            "ipsum dolor sit amet lorem ipsum dolor sit… */ }): Promise<unknown>;"))
      << declaration;
  EXPECT_EQ(ts_signature_line(tool), "t(args: { a: string }): unknown");
}

TEST(TsSignatureHostile, GiantSchemaIsCutUnderTheCap) {
  json properties, values = json::array();
  for (int i = 0; i < 10000; ++i) {
    properties["p" + std::to_string(10000 + i)] = {{"type", "string"}, {"description", std::string(300, 'd')}};
    values.push_back("value" + std::to_string(i));
  }
  const json tool = {{"name", "t"},
                     {"description", "Big."},
                     {"inputSchema", {{"type", "object"}, {"properties", properties}}},
                     {"outputSchema", {{"enum", values}}}};
  const std::string declaration = ts_declaration(tool);
  EXPECT_LE(declaration.size(), max_declaration_bytes);
  EXPECT_GT(declaration.size(), max_declaration_bytes / 2);
  // Cut at a member, the rest of the declaration intact.
  EXPECT_TRUE(declaration.starts_with("/** Big. */\ndeclare function t(args: { p10000?: string /* ddd")) << declaration;
  EXPECT_NE(declaration.find("… */; p10001?: string /* ddd"), std::string::npos);
  EXPECT_NE(declaration.find("; … }): Promise<\"value0\" | \"value1\" | "), std::string::npos);
  EXPECT_TRUE(declaration.ends_with(" | …>;")) << declaration.substr(declaration.size() - 100);
  const std::string line = ts_signature_line(tool, 1000);
  EXPECT_LE(chars(line), 1000u);
  EXPECT_GT(chars(line), 900u);
  EXPECT_TRUE(line.ends_with("; …")) << line;
  // A huge name, key or literal is cut or summarised, never copied whole.
  const json long_names = {{"name", std::string(100000, 'n')},
                           {"inputSchema", {{"type", "object"}, {"required", {std::string(100000, 'k')}}}}};
  EXPECT_LE(ts_declaration(long_names).size(), 600u);
}

TEST(TsSignatureHostile, InvalidUtf8AndControlCharactersAreReplaced) {
  const json tool = {{"name", "t\xff"},
                     {"description", "bad \xc3\x28 byte\x01 and \xe2\x80\xa8 separator"},
                     {"inputSchema",
                      {{"type", "object"},
                       {"required", {"k\xfe"}},
                       {"properties", {{"e", {{"enum", {"\xed\xa0\x80"}}, {"description", "tab\there\x7f"}}}}}}}};
  const std::string declaration = ts_declaration(tool);
  EXPECT_TRUE(valid_utf8(declaration)) << declaration;
  EXPECT_EQ(declaration,
            "/**\n * Call it as callMCPTool(\"t\xef\xbf\xbd\", args).\n * bad \xef\xbf\xbd( byte and separator\n */\n"
            "declare function t_(args: { \"k\xef\xbf\xbd\": unknown; e?: \"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\" "
            "/* tab here */ }): Promise<unknown>;");
  EXPECT_TRUE(valid_utf8(ts_signature_line(tool)));
}

// ---- The real tool lists of the npm servers the harness runs.

json real_tool(const std::string& file, const std::string& name) {
  std::ifstream in(std::string(HARNESS_TEST_SOURCE_DIR) + "/tests/mcp_server/data/" + file);
  const json doc = json::parse(in, nullptr, false);
  if (doc.is_object() && doc.contains("tools")) {
    for (const auto& tool : doc["tools"]) {
      if (tool.value("name", "") == name) return tool;
    }
  }
  ADD_FAILURE() << "no tool " << name << " in " << file;
  return json::object();
}

json filesystem_tool(const std::string& name) {
  return real_tool("server_filesystem_tools.json", name);
}
json memory_tool(const std::string& name) {
  return real_tool("server_memory_tools.json", name);
}

TEST(TsSignatureRealServers, FilesystemReadFile) {
  const json tool = filesystem_tool("read_file");
  EXPECT_EQ(ts_declaration(tool),
            "/** Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead. */\n"
            "declare function read_file(args: { path: string; "
            "head?: number /* If provided, returns only the first N lines of the file */; "
            "tail?: number /* If provided, returns only the last N lines of the file */ }): "
            "Promise<{ content: string }>;");
  EXPECT_EQ(ts_signature_line(tool),
            "read_file(args: { path: string; head?: number; tail?: number }): { content: string }");
}

TEST(TsSignatureRealServers, FilesystemEditFile) {
  EXPECT_EQ(ts_declaration(filesystem_tool("edit_file")),
            "/**\n"
            " * Make line-based edits to a text file. Each edit replaces exact line sequences with new content.\n"
            " * Returns a git-style diff showing the changes made. Only works within allowed directories.\n"
            " */\n"
            "declare function edit_file(args: { path: string; edits: { "
            "oldText: string /* Text to search for - must match exactly */; "
            "newText: string /* Text to replace with */ }[]; "
            "dryRun?: boolean /* Preview changes using git-style diff format; default: false */ }): "
            "Promise<{ content: string }>;");
}

TEST(TsSignatureRealServers, FilesystemReadMediaFile) {
  EXPECT_EQ(
      ts_signature_line(filesystem_tool("read_media_file")),
      "read_media_file(args: { path: string }): { content: ({ type: \"image\" | \"audio\"; data: string; "
      "mimeType: string } | { type: \"resource\"; resource: { uri: string; blob: string; mimeType?: string } })[] }");
}

TEST(TsSignatureRealServers, FilesystemListingTools) {
  EXPECT_TRUE(ts_declaration(filesystem_tool("list_directory_with_sizes"))
                  .ends_with("\ndeclare function list_directory_with_sizes(args: { path: string; "
                             "sortBy?: \"name\" | \"size\" /* Sort entries by name or size; default: \"name\" */ }): "
                             "Promise<{ content: string }>;"));
  EXPECT_EQ(ts_signature_line(filesystem_tool("list_allowed_directories")),
            "list_allowed_directories(args: Record<string, unknown>): { content: string }");
  // The glob in the description cannot close the comment.
  EXPECT_NE(ts_declaration(filesystem_tool("search_files")).find("and '**\\/*.ext' to match"), std::string::npos);
}

TEST(TsSignatureRealServers, MemoryTools) {
  EXPECT_EQ(ts_declaration(memory_tool("add_observations")),
            "/** Add new observations to existing entities in the knowledge graph */\n"
            "declare function add_observations(args: { observations: { "
            "entityName: string /* The name of the entity to add the observations to */; "
            "contents: string[] /* An array of observation contents to add */ }[] }): "
            "Promise<{ results: { entityName: string; addedObservations: string[] }[] }>;");
  EXPECT_EQ(ts_signature_line(memory_tool("create_entities")),
            "create_entities(args: { entities: { name: string; entityType: string; observations: string[] }[] }): "
            "{ entities: { name: string; entityType: string; observations: string[] }[] }");
  EXPECT_EQ(ts_signature_line(memory_tool("read_graph")),
            "read_graph(args: Record<string, unknown>): { entities: { name: string; entityType: string; "
            "observations: string[] }[]; relations: { from: string; to: string; relationType: string }[] }");
  EXPECT_EQ(ts_signature_line(memory_tool("delete_observations")),
            "delete_observations(args: { deletions: { entityName: string; observations: string[] }[] }): "
            "{ success: boolean; message: string }");
}

TEST(TsSignatureRealServers, EveryToolIsFullyTypedAndSmallerThanItsSchemas) {
  for (const char* file : {"server_filesystem_tools.json", "server_memory_tools.json"}) {
    std::ifstream in(std::string(HARNESS_TEST_SOURCE_DIR) + "/tests/mcp_server/data/" + file);
    const json doc = json::parse(in, nullptr, false);
    ASSERT_TRUE(doc.is_object() && doc.contains("tools")) << file;
    EXPECT_GT(doc["tools"].size(), 8u);
    for (const auto& tool : doc["tools"]) {
      const std::string line = ts_signature_line(tool, 100000);
      std::string without_records = line;
      for (auto at = without_records.find("Record<string, unknown>"); at != std::string::npos;
           at = without_records.find("Record<string, unknown>")) {
        without_records.erase(at, 23);
      }
      EXPECT_EQ(without_records.find("unknown"), std::string::npos) << line;
      EXPECT_EQ(line.find("…"), std::string::npos) << line;
      EXPECT_LT(line.size(), tool["inputSchema"].dump().size() + tool["outputSchema"].dump().size()) << line;
    }
  }
}

}  // namespace
}  // namespace harness::mcp_server
