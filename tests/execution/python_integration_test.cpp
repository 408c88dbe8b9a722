// Python blocks on the production path: POST /execute with "language":
// "python", the one sandbox image (Debian's python3 with numpy and pandas),
// the Python runtime on the same protocol and call socket as the JavaScript
// one, the real MCP servers and the PII censor. Runs under runc and gVisor.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "execution/execute_fixture.hpp"

namespace harness::testing {
namespace {

using PythonIntegration = ExecuteIntegration;

json python(const std::string& code) {
  return {{"userId", "alice"}, {"language", "python"}, {"code", code}};
}

TEST_F(PythonIntegration, ABlockReturnsItsValueAndASessionKeepsItsState) {
  json first = python("import math\nrows = [1, 2, 3]\ndef total(xs):\n    return sum(xs)\nreturn total(rows)");
  first["sessionId"] = "py";
  json r = execute(first);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"], 6);
  EXPECT_EQ(r["language"], "python");
  EXPECT_EQ(r["sandbox"]["channel"], "socket");
  // Variables, imports and functions of the first block are there in the next.
  json second = python("rows.append(4)\nmath.floor(total(rows) / 2)");
  second["sessionId"] = "py";
  r = execute(second);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"], 5) << "the last expression is the result";
  EXPECT_FALSE(r["sandbox"]["opened"]);
}

TEST_F(PythonIntegration, ToolsAreDiscoveredAndCalledAndPiiStaysTokenized) {
  auto source = workspace / "customers.txt";
  std::ofstream(source) << "Ada Lovelace <ada@example.com>\n";
  auto copy = workspace / "copy.txt";
  json r =
      execute(python("tools = await list_mcp_tools('write file')\n"
                     "text = await call_mcp_tool('fs__read_text_file', {'path': '" +
                     source.string() +
                     "'})\n"
                     "body = text if isinstance(text, str) else str(text)\n"
                     "await call_mcp_tool('fs__write_file', {'path': '" +
                     copy.string() +
                     "', 'content': body})\n"
                     "try:\n"
                     "    await call_mcp_tool('fs__read_text_file', {'path': '/etc/passwd'})\n"
                     "    refused = None\n"
                     "except MCPToolError as e:\n"
                     "    refused = type(e).__name__\n"
                     "return {'first': tools[0]['name'], 'body': body, 'refused': refused}"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"]["first"], "fs__write_file");
  EXPECT_EQ(r["result"]["refused"], "MCPToolError");
  const std::string seen = r["result"]["body"].get<std::string>();
  EXPECT_EQ(seen.find("ada@example.com"), std::string::npos) << seen;
  EXPECT_NE(seen.find("[EMAIL_1]"), std::string::npos) << seen;
  // The tool the data went on to received the real value.
  std::stringstream written;
  written << std::ifstream(copy).rdbuf();
  EXPECT_NE(written.str().find("ada@example.com"), std::string::npos) << written.str();
  EXPECT_EQ(r["toolCalls"].size(), 4u) << r.dump();
}

TEST_F(PythonIntegration, NumpyAndPandasFromDebianAreThere) {
  // Importing pandas reads hundreds of files: seconds under gVisor's ptrace
  // platform on a busy machine, past the fixture's 4 s block limit.
  ASSERT_EQ(server->stop(), 0) << server->output();
  start_server({{"SANDBOX_TIMEOUT_MS", "30000"}}, false);  // Python's pool fills on demand: no wait for the JS one
  const json body = python(
      "import numpy as np, pandas as pd\n"
      "df = pd.DataFrame({'region': ['n', 's', 'n'], 'sales': [10, 20, 5]})\n"
      "by = df.groupby('region')['sales'].sum()\n"
      "print(len(df), 'rows')\n"
      "return {'n': int(by['n']), 'mean': float(np.mean(df['sales']))}");
  // A cold Python sandbox and the import together: more than the usual 10 s wait for an answer.
  auto answer = http_call(port, "POST", "/execute", body.dump(), "application/json", "", 60s);
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  const json r = answer->json();
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"]["n"], 15);
  EXPECT_DOUBLE_EQ(r["result"]["mean"].get<double>(), 35.0 / 3);
  ASSERT_FALSE(r["logs"].empty()) << r.dump();
  EXPECT_NE(r["logs"][0]["text"].get<std::string>().find("3 rows"), std::string::npos) << r.dump();
}

TEST_F(PythonIntegration, TheShippedExampleAndASavedSkillImport) {
  // The shipped examples, where this server's skills live (read at start-up).
  ASSERT_EQ(server->stop(), 0) << server->output();
  fs::copy(source_path("skills/examples"), workspace / "skills" / "examples", fs::copy_options::recursive);
  start_server({});
  json r =
      execute(python("from skills.examples.sales_summary import summarize\n"
                     "rows = [{'region': 'n', 'amount': 10}, {'region': 's', 'amount': 25}, "
                     "{'region': 'n', 'amount': 5}]\n"
                     "return summarize(rows, by='region', value='amount', top=1)"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"]["groups"][0]["key"], "s");
  EXPECT_EQ(r["result"]["omittedGroups"], 1);
  // Saved by one block, kept for the user, imported by the next (a fresh sandbox).
  r =
      execute(python("import os\n"
                     "os.makedirs('/skills/word-count', exist_ok=True)\n"
                     "open('/skills/word-count/SKILL.md', 'w').write("
                     "'---\\nname: word-count\\ndescription: Counts words.\\n---\\n')\n"
                     "open('/skills/word-count/__init__.py', 'w').write("
                     "'def count(text):\\n    return len(text.split())\\n')\n"
                     "return 'saved'"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  ASSERT_TRUE(r.contains("saved")) << r.dump();
  EXPECT_EQ(r["saved"]["written"].size(), 2u) << r.dump();
  r = execute(python("from skills.word_count import count\nreturn count('one two three')"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["result"], 3);
}

TEST_F(PythonIntegration, ErrorsAndUnserialisableResultsAreClear) {
  json r = execute(python("x = 1\nraise ValueError('bad input ' + str(x))"));
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["name"], "ValueError");
  EXPECT_EQ(r["error"]["message"], "bad input 1");
  r = execute(python("return {'rows': [1, {2, 3}]}"));
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["name"], "TypeError");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("rows"), std::string::npos) << r.dump();
}

TEST_F(PythonIntegration, ARunawayBlockIsStoppedAtTheDeadline) {
  json r = execute(python("while True:\n    pass"));
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["name"], "TimeoutError") << r.dump();
  EXPECT_EQ(r["sandbox"]["ended"], true);
  EXPECT_EQ(execute(python("return 'next'"))["result"], "next");
}

TEST_F(PythonIntegration, ASessionKeepsItsLanguageAndAnUnknownOneIsRefused) {
  json js{{"userId", "alice"}, {"sessionId", "mixed"}, {"code", "return 1"}};
  EXPECT_EQ(execute(js)["result"], 1);
  json py = python("return 2");
  py["sessionId"] = "mixed";
  json refused = execute(py, 409);
  EXPECT_EQ(refused["error"]["code"], "language_mismatch") << refused.dump();
  json bad{{"userId", "alice"}, {"language", "ruby"}, {"code", "1"}};
  json answer = execute(bad, 400);
  EXPECT_NE(answer.dump().find("javascript, python"), std::string::npos) << answer.dump();
}

}  // namespace
}  // namespace harness::testing
