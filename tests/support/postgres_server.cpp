#include "support/postgres_server.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace harness::testing {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("PostgreSQL for the tests: " + what);
}

// The newest /usr/lib/postgresql/<version>/bin with initdb and postgres.
fs::path find_bin() {
  if (const char* env = std::getenv("HARNESS_PG_BIN")) return env;
  fs::path best;
  int best_version = -1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const auto bin = entry.path() / "bin";
    if (!fs::exists(bin / "initdb") || !fs::exists(bin / "postgres")) continue;
    const int version = std::atoi(entry.path().filename().c_str());
    if (version > best_version) best_version = version, best = bin;
  }
  if (best.empty()) {
    fail(
        "not installed (no /usr/lib/postgresql/<version>/bin/initdb); install it: apt-get install postgresql "
        "(scripts/test.sh does)");
  }
  return best;
}

// The account the server runs as: postgres when we are root (initdb and
// postgres refuse root), else ourselves.
struct account {
  uid_t uid = ::getuid();
  gid_t gid = ::getgid();
  bool switch_user = false;
};

account server_account() {
  account a;
  if (::geteuid() != 0) return a;
  const passwd* pw = ::getpwnam("postgres");
  if (pw == nullptr) fail("running as root, but there is no 'postgres' user to run the server as");
  a.uid = pw->pw_uid;
  a.gid = pw->pw_gid;
  a.switch_user = true;
  return a;
}

void chown_tree(const fs::path& root, const account& a) {
  if (!a.switch_user) return;
  (void)!::chown(root.c_str(), a.uid, a.gid);
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    (void)!::lchown(entry.path().c_str(), a.uid, a.gid);
  }
}

// Starts argv as `a`, output to `log`. With die_with_us, the child gets
// SIGQUIT when this process ends.
pid_t spawn(const std::vector<std::string>& argv, const account& a, const fs::path& log, bool die_with_us) {
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) fail("fork failed");
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::setsid();
    if (a.switch_user && (::setgid(a.gid) != 0 || ::setuid(a.uid) != 0)) ::_exit(126);
    // After setuid: a change of credentials clears the parent-death signal.
    if (die_with_us) ::prctl(PR_SET_PDEATHSIG, SIGQUIT);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void run(const std::vector<std::string>& argv, const account& a, const fs::path& log) {
  const pid_t pid = spawn(argv, a, log, false);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fail(argv[0] + " failed (status " + std::to_string(status) + "): " + read_file(log));
  }
}

// The initdb'd cluster this process copies, made once per machine (and PostgreSQL version).
fs::path template_cluster(const fs::path& bin, const account& a) {
  const auto version = bin.parent_path().filename().string();
  const fs::path tmp = fs::temp_directory_path();
  const fs::path done = tmp / ("harness-pg-template-" + version + "-" + std::to_string(a.uid));
  if (fs::exists(done / "PG_VERSION")) return done;
  const fs::path work = tmp / ("harness-pg-initdb-" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  chown_tree(work, a);
  const fs::path data = work / "data";
  run({(bin / "initdb").string(), "-D", data.string(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
       "--no-sync"},
      a, work / "initdb.log");
  std::error_code ec;
  fs::rename(data, done, ec);  // another process may have won the race: then use its copy
  fs::remove_all(work, ec);
  if (!fs::exists(done / "PG_VERSION")) fail("initdb left no cluster in " + done.string());
  return done;
}

bool accepts(const std::string& conninfo) {
  return PQping(conninfo.c_str()) == PQPING_OK;
}

void exec_or_fail(const std::string& conninfo, const std::string& sql) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(conninfo.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) fail("cannot connect: " + std::string(PQerrorMessage(conn.get())));
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(conn.get(), sql.c_str()), &PQclear);
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
    fail(sql + " failed: " + std::string(PQresultErrorMessage(r.get())));
  }
}

}  // namespace

postgres_server& postgres_server::shared() {
  static postgres_server server;
  return server;
}

postgres_server::postgres_server() {
  const auto bin = find_bin();
  const auto a = server_account();
  const auto from = template_cluster(bin, a);
  char name[] = "/tmp/harness_pg_XXXXXX";
  if (::mkdtemp(name) == nullptr) fail("mkdtemp failed");
  folder_ = name;
  fs::copy(from, folder_ / "data", fs::copy_options::recursive);
  chown_tree(folder_, a);
  fs::permissions(folder_ / "data", fs::perms::owner_all, fs::perm_options::replace);
  pid_ = spawn({(bin / "postgres").string(), "-D", (folder_ / "data").string(), "-k", folder_.string(), "-c",
                "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                "-c", "max_connections=50", "-c", "shared_buffers=16MB"},
               a, folder_ / "server.log", true);
  const auto admin = "host=" + folder_.string() + " user=postgres dbname=postgres";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!accepts(admin)) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      fail("the server exited at start-up: " + read_file(folder_ / "server.log"));
    }
    if (std::chrono::steady_clock::now() > deadline) fail("the server did not accept connections within 60 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

postgres_server::~postgres_server() {
  if (pid_ > 0) {
    ::kill(pid_, SIGQUIT);  // immediate shutdown: the data is thrown away anyway
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  std::error_code ec;
  fs::remove_all(folder_, ec);
}

std::string postgres_server::url(const std::string& db) const {
  return "postgresql:///" + db + "?host=" + folder_.string() + "&user=postgres";
}

std::string postgres_server::create_database() {
  const auto db = "harness_test_" + std::to_string(++next_db_);
  exec_or_fail("host=" + folder_.string() + " user=postgres dbname=postgres", "CREATE DATABASE " + db);
  return url(db);
}

}  // namespace harness::testing
