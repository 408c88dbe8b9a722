// examples/sales-report end to end, as its README runs it: a real PostgreSQL
// seeded by seed.sql, the example's mcp.json (the npm server-postgres, a
// server of protocol 2024-11-05, and the memory server), the real binary and
// sandbox. The code's totals must match SQL's, the code must see tokens
// where the rows hold e-mails and phones while the memory server gets the
// real values, and the caller's answer must be a small fraction of the rows.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/harness_server.hpp"
#include "support/postgres_server.hpp"

namespace harness::testing {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// Runs `sql` on `url`; the first column of the first row ("" for none).
std::string run_sql(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string why = PQerrorMessage(conn);
    PQfinish(conn);
    throw std::runtime_error("cannot connect: " + why);
  }
  PGresult* res = PQexec(conn, sql.c_str());
  const auto status = PQresultStatus(res);
  std::string out = status == PGRES_TUPLES_OK && PQntuples(res) > 0 ? PQgetvalue(res, 0, 0) : "";
  std::string why = PQresultErrorMessage(res);
  PQclear(res);
  PQfinish(conn);
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) throw std::runtime_error("SQL failed: " + why);
  return out;
}

class SalesReport : public ::testing::Test {
 protected:
  void SetUp() override {
    owner = "harness-sales-" + std::to_string(getpid());
    root = fs::temp_directory_path() / owner;
    fs::create_directories(root);
    database = postgres_server::shared().create_database();
    run_sql(database, read_text(source_path("examples/sales-report/seed.sql")));
    server = std::make_unique<harness_server>(
        std::map<std::string, std::string>{{"PORT", "0"},
                                           {"ENV_FILE", "/dev/null"},
                                           {"MCP_CONFIG", source_path("examples/sales-report/mcp.json")},
                                           {"SALES_DATABASE_URL", database},
                                           {"MEMORY_FILE_PATH", (root / "memory.jsonl").string()},
                                           {"SANDBOX_OWNER", owner},
                                           {"SANDBOX_POOL_SIZE", "1"},
                                           {"SANDBOX_TIMEOUT_MS", "20000"},
                                           {"STORE_PATH", (root / "harness.db").string()},
                                           {"SKILLS_DIR", (root / "skills").string()},
                                           {"WORKSPACE_DIR", (root / "workspace").string()},
                                           {"SANDBOX_CALL_SOCKET_DIR", (root / "sockets").string()}});
    ASSERT_TRUE(server->wait_healthy(1, {"mcp.db", "mcp.memory"})) << server->call("GET", "/health")->body;
  }
  void TearDown() override {
    EXPECT_EQ(server->stop(), 0) << server->output();
    EXPECT_EQ(labelled_containers(owner), 0);
    fs::remove_all(root);
  }

  std::optional<raw_response> execute(const std::string& code_file) {
    json body{{"userId", "analyst"}, {"code", read_text(source_path("examples/sales-report/" + code_file))}};
    return server->call("POST", "/execute", body.dump(), std::chrono::seconds(60));
  }

  std::string owner, database;
  fs::path root;
  std::unique_ptr<harness_server> server;
};

TEST_F(SalesReport, TheCodeAggregatesInTheSandboxAndTheSkillServesAgain) {
  auto answer = execute("report.js");
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  json out = answer->json();
  ASSERT_FALSE(out.contains("error")) << answer->body;
  const json& summary = out["result"];
  EXPECT_EQ(summary["tool"], "db__query");
  EXPECT_EQ(summary["rows"], 1000);
  // The totals are SQL's.
  EXPECT_EQ(summary["total"].dump(), run_sql(database, "SELECT sum(amount)::float8 FROM sales")) << summary.dump();
  for (const char* region : {"east", "north", "south", "west"}) {
    EXPECT_EQ(summary["byRegion"][region].dump(),
              run_sql(database, std::string("SELECT sum(amount)::float8 FROM sales WHERE region = '") + region + "'"));
  }
  const std::string top_name =
      run_sql(database, "SELECT customer FROM sales GROUP BY customer ORDER BY sum(amount) DESC LIMIT 1");
  const std::string top_email =
      run_sql(database, "SELECT customer_email FROM sales GROUP BY customer_email ORDER BY sum(amount) DESC LIMIT 1");
  EXPECT_EQ(summary["top"]["name"], top_name);
  // The code saw tokens for the e-mails and phones...
  EXPECT_EQ(summary["top"]["email"].get<std::string>().rfind("[EMAIL_", 0), 0u) << summary.dump();
  EXPECT_EQ(summary["top"]["phone"].get<std::string>().rfind("[PHONE_", 0), 0u) << summary.dump();
  EXPECT_EQ(answer->body.find("@example.com"), std::string::npos) << answer->body;
  // ...while the memory server received the real ones.
  const std::string memory = read_text(root / "memory.jsonl");
  EXPECT_NE(memory.find("email " + top_email), std::string::npos) << memory;
  EXPECT_NE(memory.find("phone +1 415-555-"), std::string::npos) << memory;
  EXPECT_EQ(memory.find("[EMAIL_"), std::string::npos) << memory;
  // The skill was saved for the user.
  EXPECT_TRUE(fs::exists(root / "skills/users/analyst/sales-summary/index.js"));
  // The caller's answer is a small fraction of what the rows weigh.
  const std::size_t rows_bytes = run_sql(database,
                                         "SELECT json_agg(json_build_object('customer', customer, 'customer_email', "
                                         "customer_email, 'customer_phone', customer_phone, 'region', region, "
                                         "'amount', amount))::text FROM sales")
                                     .size();
  const std::size_t answer_bytes = summary.dump().size();
  EXPECT_GT(rows_bytes, 80000u);
  EXPECT_LT(answer_bytes, 1000u) << summary.dump();
  std::printf("sales-report: %s\n", summary.dump().c_str());
  std::printf("sales-report: rows %zu bytes, answer %zu bytes (%.2f%%)\n", rows_bytes, answer_bytes,
              100.0 * static_cast<double>(answer_bytes) / static_cast<double>(rows_bytes));

  // A later block, in a fresh sandbox, loads the saved skill and reuses it.
  auto again = execute("reuse.js");
  ASSERT_TRUE(again);
  ASSERT_EQ(again->status, 200) << again->body;
  json second = again->json();
  ASSERT_FALSE(second.contains("error")) << again->body;
  EXPECT_EQ(second["result"]["count"].dump(),
            run_sql(database, "SELECT count(*) FROM sales WHERE sold_on >= DATE '2026-07-01'"));
  EXPECT_EQ(second["result"]["total"].dump(),
            run_sql(database, "SELECT sum(amount)::float8 FROM sales WHERE sold_on >= DATE '2026-07-01'"));
}

}  // namespace
}  // namespace harness::testing
