#include "support/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace harness::testing {

child_process::child_process(const std::vector<std::string>& argv,
                             const std::map<std::string, std::string>& extra_env) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : extra_env) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argvp;
  for (auto& s : args) argvp.push_back(s.data());
  argvp.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  int rc = posix_spawn(&pid_, argvp[0], &actions, nullptr, argvp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  out_fd_ = fds[0];
  if (rc != 0) {
    close(out_fd_);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  fcntl(out_fd_, F_SETFL, fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
}

child_process::~child_process() {
  if (!exit_code_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
}

void child_process::read_available(std::chrono::milliseconds wait) {
  pollfd pfd{out_fd_, POLLIN, 0};
  if (poll(&pfd, 1, static_cast<int>(wait.count())) <= 0) return;
  char buf[65536];
  for (;;) {
    ssize_t n = read(out_fd_, buf, sizeof buf);
    if (n <= 0) break;
    output_.append(buf, static_cast<std::size_t>(n));
  }
}

std::optional<std::string> child_process::wait_for_output(const std::string& needle,
                                                          std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto pos = output_.find(needle);
    if (pos != std::string::npos) {
      auto begin = output_.rfind('\n', pos);
      begin = begin == std::string::npos ? 0 : begin + 1;
      auto end = output_.find('\n', pos);
      return output_.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    read_available(
        std::min(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now), std::chrono::milliseconds(50)));
  }
}

void child_process::send_signal(int signal) {
  if (!exit_code_) kill(pid_, signal);
}

std::optional<int> child_process::wait_exit(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      read_available(std::chrono::milliseconds(0));
      return exit_code_;
    }
    read_available(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

const std::string& child_process::output() {
  read_available(std::chrono::milliseconds(0));
  return output_;
}

std::string binary_path(const std::string& relative) {
  const char* dir = std::getenv("HARNESS_BINARY_DIR");
  return std::string(dir ? dir : HARNESS_SUPPORT_BINARY_DIR) + "/" + relative;
}

std::string source_path(const std::string& relative) {
  const char* dir = std::getenv("HARNESS_SOURCE_DIR");
  return std::string(dir ? dir : HARNESS_SUPPORT_SOURCE_DIR) + "/" + relative;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    auto candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

}  // namespace harness::testing
