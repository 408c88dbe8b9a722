// A real PostgreSQL server for tests: Debian's postgresql binaries
// (/usr/lib/postgresql/<version>/bin), started in a fresh temporary folder,
// listening on a unix socket there only (never TCP), and stopped (immediate
// shutdown) with the folder removed when the test process ends; it also dies
// with the process (PR_SET_PDEATHSIG) if the process crashes.
//
// The cluster is made once per machine by initdb into a template folder
// ($TMPDIR/harness-pg-template-<version>) and copied for each process: ctest
// runs each test in a process of its own, and initdb takes seconds.
//
// Not installed, or unable to start: postgres_server::shared() throws
// std::runtime_error saying so, so a test that needs it FAILS (never skips).
// scripts/test.sh installs the postgresql package.
#pragma once

#include <sys/types.h>
#include <filesystem>
#include <string>

namespace harness::testing {

class postgres_server {
 public:
  // The server of this test process, started on first use.
  static postgres_server& shared();

  // CREATE DATABASE of a new, empty database; returns its URL
  // (postgresql:///<db>?host=<socket folder>&user=postgres).
  std::string create_database();
  // The URL of database `db` on this server.
  std::string url(const std::string& db) const;
  const std::filesystem::path& socket_folder() const { return folder_; }

  postgres_server(const postgres_server&) = delete;
  postgres_server& operator=(const postgres_server&) = delete;
  ~postgres_server();

 private:
  postgres_server();
  std::filesystem::path folder_;  // data/ and the socket
  pid_t pid_ = -1;
  int next_db_ = 0;
};

}  // namespace harness::testing
