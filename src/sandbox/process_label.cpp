#include "harness/sandbox/process_label.hpp"

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace harness::sandbox {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Field 22 of /proc/<pid>/stat (the start time), read after the command's
// closing parenthesis: the command may itself hold spaces and parentheses.
// Empty for a zombie (field 3 "Z"): it has ended, only its parent has not
// collected it yet.
std::string start_time_of(const std::string& pid) {
  const std::string stat = first_line("/proc/" + pid + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int index = 3; index <= 22 && fields >> field; ++index) {
    if (index == 3 && (field == "Z" || field == "X")) return {};
    if (index == 22) return field;
  }
  return {};
}

// The PID namespace of the calling process ("pid:[4026531836]"): a pid means
// something only within its namespace (a harness in a container is pid 1 there).
std::string pid_namespace() {
  std::error_code ec;
  auto target = std::filesystem::read_symlink("/proc/self/ns/pid", ec);
  return ec ? std::string() : target.string();
}

bool is_number(std::string_view text) {
  unsigned long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string process_label_of(long pid) {
  const std::string boot = first_line("/proc/sys/kernel/random/boot_id") + pid_namespace();
  const std::string number = std::to_string(pid);
  const std::string started = start_time_of(number);
  return boot.empty() || started.empty() ? std::string() : boot + "/" + number + "/" + started;
}

const std::string& this_process() {
  static const std::string label = process_label_of(::getpid());
  return label;
}

bool process_alive(const std::string& label) {
  const auto first = label.find('/');
  const auto second = first == std::string::npos ? std::string::npos : label.find('/', first + 1);
  if (second == std::string::npos) return false;
  const std::string boot = label.substr(0, first);
  const std::string pid = label.substr(first + 1, second - first - 1);
  const std::string started = label.substr(second + 1);
  if (!is_number(pid) || !is_number(started)) return false;
  // Another boot, or another PID namespace (whose pids this process cannot look up): not judged alive.
  if (boot.empty() || boot != first_line("/proc/sys/kernel/random/boot_id") + pid_namespace()) return false;
  return start_time_of(pid) == started;
}

}  // namespace harness::sandbox
