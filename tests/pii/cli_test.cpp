#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/pii/pii_cli.hpp"
#include "harness/pii/pii_config.hpp"

namespace harness::pii {
namespace {

struct cli_run {
  int code;
  std::string out, err;
};

cli_run run(std::vector<std::string> args, std::string input, std::map<std::string, std::string> env = {}) {
  core::setting_sources sources;
  sources.env = std::move(env);
  auto specs = pii_setting_specs();
  auto s = core::settings::resolve(specs, sources);
  EXPECT_TRUE(s);
  std::istringstream in(input);
  std::ostringstream out, err;
  int code = run_pii_cli(args, *s, in, out, err);
  return {code, out.str(), err.str()};
}

TEST(PiiCli, TokenizesStdin) {
  auto r = run({"tokenize"}, "mail a@b.com, call 415-555-2671\n");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "mail [EMAIL_1], call [PHONE_1]\n");
}

TEST(PiiCli, JsonOutputHasByteOffsets) {
  std::string input = "caf\xc3\xa9 a@b.com";
  auto r = run({"tokenize", "--json"}, input);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["text"], "caf\xc3\xa9 [EMAIL_1]");
  ASSERT_EQ(j["detections"].size(), 1u);
  EXPECT_EQ(j["detections"][0], (nlohmann::json{{"kind", "email"}, {"start", 6}, {"end", 13}, {"token", "[EMAIL_1]"}}));
}

TEST(PiiCli, HonoursPatternSettings) {
  auto r = run({"tokenize"}, "ID-123456 a@b.com",
               {{"PII_CUSTOM_PATTERNS", R"(custom_id=\bID-\d{6}\b)"}, {"PII_DETECTORS", "none"}});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "[CUSTOM_ID_1] a@b.com");
}

TEST(PiiCli, InvalidUtf8InJsonModeDoesNotCrash) {
  auto r = run({"tokenize", "--json"}, std::string("\xff a@b.com", 9));
  ASSERT_EQ(r.code, 0);
  EXPECT_TRUE(nlohmann::json::accept(r.out));
}

TEST(PiiCli, UsageAndConfigErrors) {
  EXPECT_EQ(run({}, "").code, 2);
  EXPECT_EQ(run({"detect"}, "").code, 2);
  EXPECT_EQ(run({"tokenize", "--yaml"}, "").code, 2);
  auto help = run({"--help"}, "");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("tokenize"), std::string::npos);
  auto bad = run({"tokenize"}, "x", {{"PII_CUSTOM_PATTERNS", "broken=(("}});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("'broken'"), std::string::npos) << bad.err;
}

// The real process: stdin from a file, settings from the environment.
TEST(PiiCli, EndToEndAsAProcess) {
  std::string tool = PII_CLI_TOOL;  // set by tests/pii/CMakeLists.txt
  ASSERT_TRUE(std::filesystem::exists(tool)) << tool;
  auto input = std::filesystem::temp_directory_path() / ("pii_cli_in_" + std::to_string(::getpid()));
  std::ofstream(input) << "ID-123456 wrote from 10.1.2.3";
  std::string cmd = "PII_CUSTOM_PATTERNS='custom_id=\\bID-\\d{6}\\b' " + tool + " tokenize --json < " + input.string();
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = ::pclose(p);
  std::filesystem::remove(input);
  EXPECT_EQ(status, 0);
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["text"], "[CUSTOM_ID_1] wrote from [IPV4_1]");
  EXPECT_EQ(j["detections"][1]["kind"], "ipv4");
  EXPECT_EQ(j["detections"][1]["start"], 21);

  FILE* bad = ::popen(("PII_DETECTORS=email,passport " + tool + " tokenize </dev/null 2>&1").c_str(), "r");
  ASSERT_NE(bad, nullptr);
  std::string err;
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, bad)) > 0;) err.append(buf, n);
  EXPECT_EQ(WEXITSTATUS(::pclose(bad)), 1);
  EXPECT_NE(err.find("passport"), std::string::npos) << err;
}

}  // namespace
}  // namespace harness::pii
