#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harness/core/with_deadline.hpp"
#include "harness/mcp/errors.hpp"

namespace harness::mcp::detail {
namespace asio = boost::asio;

namespace {

struct pipe_pair {
  int read = -1;
  int write = -1;
};

bool make_pipe(pipe_pair& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.read = fds[0];
  p.write = fds[1];
  return true;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int open_pidfd(int pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

}  // namespace

std::map<std::string, std::string> minimal_environment() {
  std::map<std::string, std::string> env;
  for (const char* name : {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ"}) {
    if (const char* value = std::getenv(name)) env[name] = value;
  }
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  return env;
}

result<std::unique_ptr<child_process>> child_process::spawn(asio::any_io_executor executor,
                                                            const spawn_request& request) {
  // Writing to the stdin pipe of a child that died raises SIGPIPE, which would kill
  // the whole harness; with it ignored the write fails with EPIPE and we report it.
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
  pipe_pair in, out, err;
  auto fail = [&](const std::string& what) -> result<std::unique_ptr<child_process>> {
    const int saved = errno;
    for (int* fd : {&in.read, &in.write, &out.read, &out.write, &err.read, &err.write}) close_fd(*fd);
    return make_error(mcp::errc::spawn_failed,
                      "cannot start `" + request.command + "`: " + what + ": " + std::strerror(saved),
                      "check the command and args in the MCP config");
  };
  if (!make_pipe(in) || !make_pipe(out) || !make_pipe(err)) return fail("pipe");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write, 2);
  if (!request.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, request.cwd.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<std::string> argv_storage;
  argv_storage.push_back(request.command);
  argv_storage.insert(argv_storage.end(), request.args.begin(), request.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (const auto& [k, v] : request.env) env_storage.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  // posix_spawnp searches our PATH; look the command up in the child's PATH ourselves
  // so a configured PATH wins, as it would for a shell.
  std::string program = request.command;
  if (program.find('/') == std::string::npos) {
    auto path = request.env.find("PATH");
    std::string dirs = path != request.env.end() ? path->second : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
      std::size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string candidate = dirs.substr(start, end - start) + "/" + request.command;
      if (end > start && ::access(candidate.c_str(), X_OK) == 0) {
        program = candidate;
        break;
      }
      start = end + 1;
    }
  }
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    errno = rc;
    return fail("posix_spawn");
  }
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  const int pidfd = open_pidfd(pid);
  return std::unique_ptr<child_process>(new child_process(executor, pid, in.write, out.read, err.read, pidfd));
}

child_process::child_process(asio::any_io_executor executor, int pid, int in, int out, int err, int pidfd)
    : pid_(pid), stdin_(executor, in), stdout_(executor, out), stderr_(executor, err) {
  if (pidfd >= 0) pidfd_.emplace(executor, pidfd);
  boost::system::error_code ec;
  stdin_.non_blocking(true, ec);
  stdout_.non_blocking(true, ec);
  stderr_.non_blocking(true, ec);
}

child_process::~child_process() {
  if (!reaped_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

bool child_process::try_reap() {
  if (reaped_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return false;
  reaped_ = true;
  if (r < 0) {
    exit_text_ = "exited (status unknown)";
  } else if (WIFEXITED(status)) {
    exit_text_ = "exit status " + std::to_string(WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    exit_text_ = "killed by signal " + std::to_string(WTERMSIG(status));
  } else {
    exit_text_ = "exited";
  }
  return true;
}

asio::awaitable<bool> child_process::wait_exit(core::clock& clock, std::chrono::milliseconds limit) {
  if (try_reap()) co_return true;
  auto executor = co_await asio::this_coro::executor;
  const auto deadline = clock.steady_now() + limit;
  if (pidfd_) {
    auto readable = pidfd_->async_wait(asio::posix::descriptor_base::wait_read, asio::as_tuple(asio::use_awaitable));
    co_await core::with_deadline(clock, std::move(readable), deadline);
    co_return try_reap();
  }
  auto timer = clock.make_timer(executor);
  // No pidfd (old kernel): poll.
  while (!try_reap()) {
    if (clock.steady_now() >= deadline) co_return false;
    timer->expires_at(clock.steady_now() + std::chrono::milliseconds(20));
    co_await timer->wait();
  }
  co_return true;
}

void child_process::signal(int sig) {
  if (reaped_) return;
  if (::kill(-pid_, sig) != 0) ::kill(pid_, sig);
}

void child_process::kill_group() {
  ::kill(-pid_, SIGKILL);
}

}  // namespace harness::mcp::detail
