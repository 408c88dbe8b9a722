// The pure parts of the agent: the system prompt and the observation text.
#include <gtest/gtest.h>

#include "harness/agent/agent_config.hpp"
#include "harness/agent/prompt.hpp"
#include "harness/pii/pii_censor.hpp"
#include "observation.hpp"

namespace harness::agent {
namespace {

using json = nlohmann::json;

TEST(Prompt, NamesEachServerOnceSorted) {
  auto servers = server_names(
      {"fs__read_file", "memory__create_entities", "fs__write_file", "fs__list_directory", "fs__move_file", "plain"});
  EXPECT_EQ(servers, (std::vector<std::string>{"fs", "memory", "plain"}));
}

TEST(Prompt, TeachesTheApiNamesServersAndSkillsButNotEveryTool) {
  prompt_inputs in;
  in.servers = server_names({"fs__read_file", "fs__write_file", "fs__list_directory", "fs__move_file", "memory__x"});
  in.skills = {{"csv-report", "Summarises CSV files", "/skills/csv-report"}};
  in.max_turns = 7;
  auto text = system_prompt(in);
  for (const char* needle :
       {"list_mcp_tools", "get_mcp_tool_details", "callMCPTool", "readMCPResource", "throws on error", "/workspace",
        "<server>__<tool>", "): fs, memory\n", "Skills in /skills/", "\ncsv-report: Summarises CSV files\n", "7 turns",
        "[EMAIL_1]", "SKILL.md"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle;
  }
  EXPECT_EQ(text.find("fs__read_file"), std::string::npos) << "the tool list is for the code to discover";
}

// A description goes into every later prompt of its user: only its first
// max_prompt_description_bytes do, on one line, cut at a character.
TEST(Prompt, ALongSkillDescriptionIsCutAndKeptToOneLine) {
  prompt_inputs in;
  std::string long_text = "Line one\nline two " + std::string(400, 'x') + "\u00e9\u00e9\u00e9";
  in.skills = {{"big", long_text, "/skills/big"}, {"cut-in-char", std::string(299, 'y') + "\u00e9z", "/skills/c"}};
  auto text = system_prompt(in);
  auto line_start = text.find("\nbig: ") + 1;
  auto line = text.substr(line_start, text.find('\n', line_start) - line_start);
  EXPECT_EQ(line, "big: Line one line two " + std::string(300 - 18, 'x') + "...");
  // A two-byte character across the limit is left out whole, not split.
  EXPECT_NE(text.find("c: " + std::string(299, 'y') + "...\n"), std::string::npos) << text;
  EXPECT_EQ(text.find(std::string(400, 'x')), std::string::npos);
}

TEST(Prompt, APythonTaskIsTaughtThePythonHelpers) {
  prompt_inputs in;
  in.servers = {"fs"};
  in.language = sandbox::language::python;
  auto text = system_prompt(in);
  EXPECT_EQ(text.rfind("Write Python for `execute_code`", 0), 0u) << text;
  EXPECT_NE(text.find("await call_mcp_tool(name, args)"), std::string::npos) << text;
  EXPECT_NE(text.find("MCPToolError"), std::string::npos);
  EXPECT_EQ(text.find("callMCPTool"), std::string::npos) << "no JavaScript name in a Python prompt";
  EXPECT_NE(text.find("import skills."), std::string::npos);
  EXPECT_NE(text.find(": fs\n"), std::string::npos);
}

TEST(Prompt, SaysSoWhenNothingIsConnected) {
  auto text = system_prompt({});
  EXPECT_NE(text.find("(none are connected right now)"), std::string::npos);
  EXPECT_NE(text.find("(none yet)"), std::string::npos);
}

bridge::exec_result ok_result(json value) {
  bridge::exec_result r;
  r.ok = true;
  r.value = std::move(value);
  return r;
}

TEST(Observation, ShowsLogsTheReturnedValueAndToolCalls) {
  auto r = ok_result({{"sum", 12}});
  r.logs = {{"log", "found 3"}, {"warn", "careful"}};
  r.tool_calls = {{"fs__read_file", 1.5, true}, {"fs__write_file", 2.0, false}};
  auto seen = make_observation({.outcome = r, .sandbox_note = "", .max_chars = 8000, .full_text_path = ""});
  EXPECT_EQ(seen.text, "found 3\n[warn] careful\nreturned: {\"sum\":12}\ntool calls: 2 (1 failed)\n");
  EXPECT_FALSE(seen.is_error);
  EXPECT_FALSE(seen.truncated);
}

// The task's censor (e-mail addresses only) and its vault, as a task has them.
llm_transcript censoring_transcript() {
  auto censor = pii::pii_censor_builder().build();
  EXPECT_TRUE(censor);
  return llm_transcript(std::make_shared<const pii::pii_censor>(std::move(*censor)),
                        std::make_shared<pii::pii_vault>());
}

TEST(ToolCallEvent, CarriesTheArgumentsCensoredAndTheAnswersSize) {
  auto transcript = censoring_transcript();
  const std::string args = R"({"content":"[EMAIL_1] and bob@example.com","path":"/a.txt"})";
  bridge::tool_call_record call{.name = "fs__write_file",
                                .ms = 2.5,
                                .ok = true,
                                .args_json = args,
                                .args_bytes = args.size(),
                                .reply_bytes = 115};
  auto event = tool_call_event(call, 3, transcript);
  EXPECT_EQ(event["name"], "fs__write_file");
  EXPECT_EQ(event["turn"], 3);
  EXPECT_EQ(event["resultBytes"], 115);
  EXPECT_EQ(event["args"]["path"], "/a.txt");
  // A value the code held raw is a token in the event, as in its logs.
  auto content = event["args"]["content"].get<std::string>();
  EXPECT_EQ(content.find("bob@example.com"), std::string::npos) << content;
  EXPECT_NE(content.find("[EMAIL_"), std::string::npos) << content;
  // A helper (list_mcp_tools) has no arguments to show.
  bridge::tool_call_record helper{.name = "list_mcp_tools", .ms = 1, .ok = true, .reply_bytes = 9};
  EXPECT_FALSE(tool_call_event(helper, 1, transcript).contains("args"));
  EXPECT_FALSE(tool_call_event(helper, 1, transcript).contains("argsBytes"));
}

TEST(ToolCallEvent, ACutRecordBecomesACensoredPreviewWithoutAPartialValue) {
  auto transcript = censoring_transcript();
  // The record was cut (by the bridge) inside an address: "carol@exam" must
  // not reach the preview, whole addresses before it are tokens, and the
  // cut keeps UTF-8 whole ("é" is two bytes).
  std::string text = "{\"c\":\"";
  while (text.size() < bridge::max_recorded_args_bytes - 40) text += "\xc3\xa9 dave@example.com ";
  text += "carol@exam";
  bridge::tool_call_record call{
      .name = "fs__write_file", .ms = 1, .ok = true, .args_json = text, .args_bytes = 50000, .reply_bytes = 10};
  auto event = tool_call_event(call, 1, transcript);
  EXPECT_FALSE(event.contains("args"));
  EXPECT_EQ(event["argsBytes"], 50000);
  const auto preview = event["argsPreview"].get<std::string>();
  EXPECT_TRUE(preview.ends_with("…"));
  EXPECT_LE(preview.size(), max_event_args_bytes + std::string("…").size());
  EXPECT_EQ(preview.find("carol@"), std::string::npos);
  EXPECT_EQ(preview.find("dave@example.com"), std::string::npos);
  EXPECT_NE(preview.find("[EMAIL_"), std::string::npos);
  EXPECT_NO_THROW((void)event.dump());  // strict: throws on a split character
  // Past the block's budget the record has no text: the event has the size only.
  call.args_json.clear();
  auto sized = tool_call_event(call, 1, transcript);
  EXPECT_EQ(sized["argsBytes"], 50000);
  EXPECT_FALSE(sized.contains("argsPreview"));
}

TEST(Observation, AnErrorCarriesItsStackAndATimeoutSaysWhatToDo) {
  bridge::exec_result r;
  bridge::fail(r, bridge::failure_kind::timeout, "the block ran past 3000 ms");
  auto seen =
      make_observation({.outcome = r, .sandbox_note = "fresh sandbox", .max_chars = 8000, .full_text_path = ""});
  EXPECT_TRUE(seen.is_error);
  EXPECT_EQ(seen.text.rfind("note: fresh sandbox\n", 0), 0u);
  EXPECT_NE(seen.text.find("error: TimeoutError: the block ran past 3000 ms"), std::string::npos);
  EXPECT_NE(seen.text.find("smaller steps"), std::string::npos);
}

TEST(Observation, ReportsSavedAndRefusedFiles) {
  auto r = ok_result(nullptr);
  json report{{"written", {"skills/csv/index.js"}},
              {"refused", {{{"path", "../x"}, {"op", "write"}, {"reason", "the path leaves the folder"}}}}};
  r.files_report = report;
  auto seen = make_observation({.outcome = r, .sandbox_note = "", .max_chars = 8000, .full_text_path = ""});
  EXPECT_NE(seen.text.find("saved files: skills/csv/index.js"), std::string::npos) << seen.text;
  EXPECT_NE(seen.text.find("file NOT saved: ../x (the path leaves the folder)"), std::string::npos) << seen.text;
  json noted{{"written", {"/skills/big/SKILL.md"}},
             {"notes", {{{"path", "/skills/big/SKILL.md"}, {"message", "the description is 900 bytes"}}}}};
  r.files_report = noted;
  auto with_note = make_observation({.outcome = r, .sandbox_note = "", .max_chars = 8000, .full_text_path = ""});
  EXPECT_NE(with_note.text.find("note on /skills/big/SKILL.md: the description is 900 bytes"), std::string::npos)
      << with_note.text;
}

TEST(Observation, ALongObservationIsCutWithANoteAndKeptWhole) {
  auto r = ok_result(std::string(5000, 'x'));
  auto seen = make_observation(
      {.outcome = r, .sandbox_note = "", .max_chars = 1000, .full_text_path = "/workspace/observations/turn-2.txt"});
  EXPECT_TRUE(seen.truncated);
  EXPECT_LE(seen.text.size(), 1000u);
  EXPECT_NE(seen.text.find("/workspace/observations/turn-2.txt"), std::string::npos);
  EXPECT_GT(seen.full_text.size(), 5000u);
}

TEST(Observation, CutsOnlyBetweenUtf8Characters) {
  std::string text = "ab\xC3\xA9";  // "abé": é is two bytes
  EXPECT_EQ(cut_utf8(text, 3), "ab");
  EXPECT_EQ(cut_utf8(text, 4), text);
  EXPECT_EQ(cut_utf8("\xE2\x82\xAC", 2), "");  // "€" is three bytes
}

TEST(AgentConfig, ReadsEverySettingWithRanges) {
  auto specs = agent_setting_specs();
  core::setting_sources sources;
  sources.env = {{"AGENT_MAX_TURNS", "5"}, {"AGENT_QUEUE_SIZE", "0"}};
  auto settings = core::settings::resolve(specs, sources);
  ASSERT_TRUE(settings);
  auto config = load_agent_config(*settings, std::chrono::milliseconds(1234), {});
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->max_turns, 5);
  EXPECT_EQ(config->queue_size, 0u);
  EXPECT_EQ(config->exec_timeout.count(), 1234);
  sources.env = {{"AGENT_MAX_TURNS", "0"}};
  auto bad = load_agent_config(*core::settings::resolve(specs, sources), std::chrono::milliseconds(1), {});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("AGENT_MAX_TURNS"), std::string::npos);
}

}  // namespace
}  // namespace harness::agent
