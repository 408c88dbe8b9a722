#include "harness/auth/key_file.hpp"
#include "harness/auth/errors.hpp"
#include "harness/core/json_parse.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/core/ids.hpp"

namespace harness::auth {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t max_file_bytes = 4 << 20;

error invalid(const fs::path& path, const std::string& what) {
  return make_error(errc::invalid_key_file, fmt::format("API_KEYS_FILE {}: {}", path.string(), what),
                    "fix or remove the file, or manage it with `mcp-harness keys`");
}

error write_failed(const fs::path& path, const std::string& what) {
  return make_error(errc::key_file_write_failed, fmt::format("API_KEYS_FILE {}: {}", path.string(), what),
                    "check that the folder exists and is writable by this user");
}

// "YYYY-MM-DDTHH:MM:SSZ" with plausible field ranges.
bool is_utc_time(const std::string& text) {
  static constexpr std::string_view shape = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != shape.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    bool ok = shape[i] == 'd' ? (text[i] >= '0' && text[i] <= '9') : text[i] == shape[i];
    if (!ok) return false;
  }
  auto number = [&](std::size_t at, std::size_t n) { return std::stoi(text.substr(at, n)); };
  return number(5, 2) >= 1 && number(5, 2) <= 12 && number(8, 2) >= 1 && number(8, 2) <= 31 && number(11, 2) <= 23 &&
         number(14, 2) <= 59 && number(17, 2) <= 60;
}

bool is_valid_label(const std::string& label) {
  if (label.size() > 100) return false;
  for (unsigned char c : label) {
    if (c < 0x20 || c == 0x7F) return false;
  }
  return true;
}

result<key_record> parse_record(const json& j, const fs::path& path, std::size_t index) {
  std::string where = fmt::format("keys[{}]", index);
  if (!j.is_object()) return invalid(path, where + " is not an object");
  static const std::set<std::string> known = {"id", "label", "users", "role", "created", "sha256"};
  for (const auto& [name, value] : j.items()) {
    if (!known.contains(name)) return invalid(path, fmt::format("{} has an unknown field '{}'", where, name));
  }
  for (const char* name : {"id", "role", "created", "sha256"}) {
    auto it = j.find(name);
    if (it == j.end()) return invalid(path, fmt::format("{}.{} is missing", where, name));
    if (!it->is_string()) return invalid(path, fmt::format("{}.{} is not a string", where, name));
  }
  key_record r;
  r.id = j["id"].get<std::string>();
  if (!core::is_safe_id(r.id, 64)) {
    return invalid(path, fmt::format("{}.id must be 1-64 letters, digits, '.', '_' or '-'", where));
  }
  if (auto it = j.find("label"); it != j.end()) {
    if (!it->is_string() || !is_valid_label(it->get<std::string>())) {
      return invalid(path, fmt::format("{}.label must be a string of at most 100 printable characters", where));
    }
    r.label = it->get<std::string>();
  }
  const std::string role = j["role"].get<std::string>();
  if (role != "user" && role != "admin") {
    return invalid(path, fmt::format("{}.role must be \"user\" or \"admin\", not \"{}\"", where, role));
  }
  r.admin = role == "admin";
  if (auto it = j.find("users"); it != j.end()) {
    if (!it->is_array()) return invalid(path, fmt::format("{}.users is not an array", where));
    for (std::size_t u = 0; u < it->size(); ++u) {
      const json& user = (*it)[u];
      if (!user.is_string() || !is_valid_user_id(user.get<std::string>())) {
        return invalid(path, fmt::format("{}.users[{}] is not a valid user id (1-64 of A-Z a-z 0-9 . _ -)", where, u));
      }
      r.users.push_back(user.get<std::string>());
    }
  }
  if (!r.admin && r.users.empty()) {
    return invalid(path, fmt::format("{} is a user key without users", where));
  }
  r.created = j["created"].get<std::string>();
  if (!is_utc_time(r.created)) {
    return invalid(path, fmt::format("{}.created is not a UTC time like 2026-12-01T12:00:00Z", where));
  }
  auto digest = digest_from_hex(j["sha256"].get<std::string>());
  if (!digest) return invalid(path, fmt::format("{}.sha256 is not 64 hex digits", where));
  r.sha256 = *digest;
  return r;
}

std::string os_error() {
  return std::strerror(errno);
}

// A file descriptor closed on every way out.
struct fd_guard {
  int fd = -1;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool is_valid_user_id(std::string_view user_id) {
  return core::is_safe_id(user_id, 64) && user_id != "." && user_id != "..";
}

result<key_set> parse_key_file(std::string_view text, const fs::path& path) {
  std::string why;
  json doc = core::parse_json(text, &why);
  if (doc.is_discarded()) return invalid(path, "not valid JSON: " + why);
  if (!doc.is_object()) return invalid(path, "the top level is not an object");
  for (const auto& [name, value] : doc.items()) {
    if (name != "version" && name != "keys") return invalid(path, fmt::format("unknown top-level field '{}'", name));
  }
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer() || version->get<std::int64_t>() != 1) {
    return invalid(path, "\"version\" must be 1");
  }
  auto keys = doc.find("keys");
  if (keys == doc.end() || !keys->is_array()) return invalid(path, "\"keys\" must be an array");
  key_set set;
  std::set<std::string> ids;
  std::set<std::string> digests;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    auto record = parse_record((*keys)[i], path, i);
    if (!record) return record.error();
    if (!ids.insert(record->id).second)
      return invalid(path, fmt::format("keys[{}].id '{}' is used twice", i, record->id));
    if (!digests.insert(to_hex(record->sha256)).second) {
      return invalid(path, fmt::format("keys[{}].sha256 repeats an earlier key's", i));
    }
    set.keys.push_back(std::move(*record));
  }
  return set;
}

std::string serialize_key_file(const key_set& set) {
  json keys = json::array();
  for (const auto& k : set.keys) {
    keys.push_back({{"id", k.id},
                    {"label", k.label},
                    {"users", k.users},
                    {"role", k.admin ? "admin" : "user"},
                    {"created", k.created},
                    {"sha256", to_hex(k.sha256)}});
  }
  json doc = {{"version", 1}, {"keys", std::move(keys)}};
  return doc.dump(2) + "\n";
}

result<loaded_key_file> read_key_file(const fs::path& path) {
  loaded_key_file loaded;
  fd_guard file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)};
  if (file.fd < 0) {
    if (errno == ENOENT) return loaded;  // no file: no keys
    if (errno == ELOOP) return invalid(path, "is a symbolic link; point API_KEYS_FILE at the file itself");
    return invalid(path, "cannot be opened: " + os_error());
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) return invalid(path, "cannot be examined: " + os_error());
  if (!S_ISREG(st.st_mode)) return invalid(path, "is not a regular file");
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    return invalid(path, fmt::format("is writable by group or others (mode {:o}), so anyone could add a key; "
                                     "run chmod 600 on it",
                                     st.st_mode & 0777));
  }
  if (st.st_mode & (S_IRGRP | S_IROTH)) {
    loaded.warning = fmt::format("API_KEYS_FILE {} is readable by group or others (mode {:o}); run chmod 600 on it",
                                 path.string(), st.st_mode & 0777);
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_file_bytes) {
    return invalid(path, fmt::format("is {} bytes; the limit is {}", st.st_size, max_file_bytes));
  }
  loaded.signature = core::signature_from(st);
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return invalid(path, "cannot be read: " + os_error());
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_file_bytes) return invalid(path, "grew past the size limit while being read");
  }
  auto set = parse_key_file(text, path);
  if (!set) return set.error();
  loaded.set = std::move(*set);
  return loaded;
}

status write_key_file(const fs::path& path, const key_set& set) {
  fs::path parent = path.parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  if (!fs::exists(parent, ec)) {
    fs::create_directories(parent, ec);
    if (ec) return write_failed(path, fmt::format("cannot create {}: {}", parent.string(), ec.message()));
    fs::permissions(parent, fs::perms::owner_all, ec);  // best effort: the file itself is 0600 anyway
  }
  std::string text = serialize_key_file(set);
  fs::path temp = parent / fmt::format(".{}.{}.tmp", path.filename().string(), ::getpid());
  fd_guard file{::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)};
  if (file.fd < 0) return write_failed(path, fmt::format("cannot create {}: {}", temp.string(), os_error()));
  auto fail = [&](const std::string& what) {
    std::string message = what + ": " + os_error();
    ::unlink(temp.c_str());
    return write_failed(path, message);
  };
  // The umask may have taken bits off, never added them; fchmod states the mode exactly.
  if (::fchmod(file.fd, 0600) != 0) return fail("cannot set mode 600");
  std::size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(file.fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("cannot write");
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(file.fd) != 0) return fail("cannot sync");
  ::close(file.fd);
  file.fd = -1;
  if (::rename(temp.c_str(), path.c_str()) != 0) return fail("cannot replace the file");
  // The rename is durable once the folder is synced too.
  fd_guard dir{::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd >= 0) ::fsync(dir.fd);
  return {};
}

status update_key_file(const fs::path& path, const std::function<status(key_set&)>& change) {
  fs::path parent = path.parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::exists(parent, ec)) {
    fs::create_directories(parent, ec);
    if (ec) return write_failed(path, fmt::format("cannot create {}: {}", parent.string(), ec.message()));
    fs::permissions(parent, fs::perms::owner_all, ec);
  }
  fs::path lock_path = path;
  lock_path += ".lock";
  fd_guard lock{::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)};
  if (lock.fd < 0) return write_failed(path, fmt::format("cannot open {}: {}", lock_path.string(), os_error()));
  while (::flock(lock.fd, LOCK_EX) != 0) {
    if (errno != EINTR) return write_failed(path, fmt::format("cannot lock {}: {}", lock_path.string(), os_error()));
  }
  auto loaded = read_key_file(path);
  if (!loaded) return loaded.error();
  if (auto changed = change(loaded->set); !changed) return changed.error();
  return write_key_file(path, loaded->set);  // the lock goes with the descriptor
}

std::string format_utc(std::chrono::system_clock::time_point time) {
  std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace harness::auth
