// Python stubs of MCP tools from their schemas (describe_tools with language
// "python"): the shapes a model reads, and hostile schemas that must give a
// short stub rather than a crash, a hang or a huge answer.
#include "harness/mcp_server/py_signature.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/mcp_server/ts_signature.hpp"

namespace harness::mcp_server {
namespace {

using nlohmann::json;

TEST(PySignature, ATypedDictOfTheArgumentsRequiredFirstAndTheDescriptionAsDocstring) {
  json tool = {{"name", "fs__read_file"},
               {"description", "Read a file."},
               {"inputSchema",
                {{"type", "object"},
                 {"properties",
                  {{"head", {{"type", "integer"}, {"description", "first lines only"}}},
                   {"path", {{"type", "string"}}},
                   {"mode", {{"enum", {"text", "base64"}}}}}},
                 {"required", {"path"}}}}};
  EXPECT_EQ(py_declaration(tool),
            "class FsReadFileArgs(TypedDict):\n"
            "    path: str\n"
            "    head: NotRequired[int]  # first lines only\n"
            "    mode: NotRequired[Literal[\"text\", \"base64\"]]\n"
            "\n"
            "async def fs__read_file(args: FsReadFileArgs) -> Any:\n"
            "    \"\"\"Read a file.\"\"\"\n");
}

TEST(PySignature, NestedObjectsListsUnionsAndTheResultFromOutputSchema) {
  json tool = {{"name", "shop__orders"},
               {"inputSchema",
                {{"type", "object"},
                 {"properties",
                  {{"ids", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                   {"limit", {{"type", {"integer", "null"}}, {"default", 10}}},
                   {"filter", {{"type", "object"}, {"properties", {{"region", {{"type", "string"}}}}}}}}}}},
               {"outputSchema",
                {{"type", "object"},
                 {"properties",
                  {{"total", {{"type", "number"}}},
                   {"tags", {{"type", "object"}, {"additionalProperties", {{"type", "boolean"}}}}}}},
                 {"required", {"total"}}}}};
  const std::string py = py_declaration(tool);
  EXPECT_NE(py.find("class Filter(TypedDict):\n    region: NotRequired[str]"), std::string::npos) << py;
  EXPECT_NE(py.find("    filter: NotRequired[Filter]"), std::string::npos) << py;
  EXPECT_NE(py.find("    ids: NotRequired[list[str]]"), std::string::npos) << py;
  EXPECT_NE(py.find("    limit: NotRequired[int | None]  # default 10"), std::string::npos) << py;
  EXPECT_NE(py.find("class ShopOrdersResult(TypedDict):\n    total: float\n    tags: NotRequired[dict[str, bool]]"),
            std::string::npos)
      << py;
  EXPECT_NE(py.find("async def shop__orders(args: ShopOrdersArgs) -> ShopOrdersResult:\n    ...\n"), std::string::npos)
      << py;
  // A class comes before the class that uses it.
  EXPECT_LT(py.find("class Filter("), py.find("class ShopOrdersArgs("));
}

TEST(PySignature, KeysThatAreNotPythonNamesUseTheFunctionalForm) {
  json tool = {{"name", "x"},
               {"inputSchema",
                {{"type", "object"},
                 {"properties", {{"content-type", {{"type", "string"}}}, {"class", {{"type", "string"}}}}},
                 {"required", {"class"}}}}};
  const std::string py = py_declaration(tool);
  EXPECT_NE(py.find("XArgs = TypedDict(\"XArgs\", {\n    \"class\": str,\n    \"content-type\": NotRequired[str],\n})"),
            std::string::npos)
      << py;
}

TEST(PySignature, ANameThatIsNotAnIdentifierSaysWhatToCall) {
  json tool = {{"name", "my-server__do.it"}, {"inputSchema", {{"type", "object"}}}};
  const std::string py = py_declaration(tool);
  EXPECT_NE(py.find("async def my_server__do_it(args: dict[str, Any]) -> Any:"), std::string::npos) << py;
  EXPECT_NE(py.find("call_mcp_tool(\"my-server__do.it\", args)"), std::string::npos) << py;
  EXPECT_NE(py_declaration({{"name", "class"}}).find("async def class_("), std::string::npos);
}

TEST(PySignature, ADocstringCannotBeEndedByItsDescription) {
  json tool = {{"name", "t"}, {"description", "ends here \"\"\" import os \\ done"}};
  const std::string py = py_declaration(tool);
  EXPECT_EQ(py.find("\"\"\" import"), std::string::npos) << py;
  EXPECT_NE(py.find("\\\"\\\"\\\" import os \\\\ done"), std::string::npos) << py;
}

TEST(PySignature, RecursiveRefsDeepSchemasAndHugeOnesStayShortAndNeverThrow) {
  json recursive = {{"name", "tree"},
                    {"inputSchema",
                     {{"$ref", "#/$defs/node"},
                      {"$defs",
                       {{"node",
                         {{"type", "object"},
                          {"properties",
                           {{"value", {{"type", "integer"}}},
                            {"children", {{"type", "array"}, {"items", {{"$ref", "#/$defs/node"}}}}}}}}}}}}}};
  const std::string py = py_declaration(recursive);
  EXPECT_NE(py.find("children: NotRequired[list[Any]]"), std::string::npos) << py;
  EXPECT_NE(py.find("async def tree(args: Node)"), std::string::npos) << py;

  json deep;  // 10,000 objects deep, built in place (a copy per level would be quadratic)
  json* level = &deep;
  for (int i = 0; i < 10000; ++i) {
    (*level)["type"] = "object";
    level = &(*level)["properties"]["a"];
  }
  *level = {{"type", "string"}};
  const std::string d = py_declaration({{"name", "deep"}, {"inputSchema", deep}});
  EXPECT_LE(d.size(), max_declaration_bytes + 8);

  json wide = {{"type", "object"}, {"properties", json::object()}};
  for (int i = 0; i < 3000; ++i) {
    wide["properties"]["field_" + std::to_string(i)] = {{"type", "object"},
                                                        {"properties", {{"x", {{"type", "string"}}}}}};
  }
  const std::string w = py_declaration({{"name", "wide"}, {"inputSchema", wide}});
  EXPECT_LE(w.size(), max_declaration_bytes + 8);
  EXPECT_NE(w.find("# …"), std::string::npos);

  for (const json& hostile : {json(nullptr), json(42), json::array(), json{{"name", 7}},
                              json{{"name", "t"}, {"inputSchema", {{"$ref", "#/no/such"}}}},
                              json{{"name", "t"}, {"inputSchema", {{"$ref", "#~9bad"}}}},
                              json{{"name", "t"}, {"inputSchema", {{"type", {1, 2}}, {"enum", 5}}}}}) {
    EXPECT_NO_THROW(py_declaration(hostile)) << hostile.dump();
  }
}

// Every stub above is Python that Python itself parses: written to a file
// with the typing imports the sandbox's code would have, and parsed by
// Debian's interpreter (the one in the sandbox image).
TEST(PySignature, StubsAreValidPython) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  const json tools = json::array(
      {{{"name", "fs__read_file"},
        {"description", "Read \"\"\" a file \\ \""},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"path", {{"type", "string"}, {"description", "where # it is"}}}, {"a-b", {{"const", 3}}}}},
          {"required", {"path"}}}}},
       {{"name", "9 lives"},
        {"inputSchema",
         {{"type", "object"}, {"properties", {{"x", {{"anyOf", {{{"type", "null"}}, {{"type", "array"}}}}}}}}}}},
       {{"name", "import"},
        {"outputSchema", {{"type", "object"}, {"properties", {{"v", {{"enum", {"a'b", true, nullptr, 3}}}}}}}}}});
  const auto file = std::filesystem::temp_directory_path() / ("harness-py-stubs-" + std::to_string(::getpid()) + ".py");
  {
    std::ofstream out(file);
    out << "from typing import Any, Literal, NotRequired, TypedDict\n\n";
    for (const auto& tool : tools) out << py_declaration(tool) << "\n";
  }
  const std::string command =
      "/usr/bin/python3 -I -c \"import ast, sys; ast.parse(open(sys.argv[1]).read())\" " + file.string() + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(file);
  EXPECT_EQ(status, 0) << output << "\n" << text;
}

}  // namespace
}  // namespace harness::mcp_server
