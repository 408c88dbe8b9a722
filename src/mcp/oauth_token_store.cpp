// Token stores: in memory, and a JSON file whose values are sealed (the app
// seals them with the vault key), written whole to a temporary file with
// mode 600 and renamed over the old one, so a crash never leaves half a file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/core/errors.hpp"
#include "harness/core/json_parse.hpp"
#include "harness/mcp/oauth.hpp"

namespace harness::mcp {
namespace {

using nlohmann::json;

class memory_store final : public oauth_token_store {
 public:
  result<json> load(const std::string& key) override {
    auto it = values_.find(key);
    return it == values_.end() ? json() : it->second;
  }
  status save(const std::string& key, const json& value) override {
    if (value.is_null()) {
      values_.erase(key);
    } else {
      values_[key] = value;
    }
    return {};
  }

 private:
  std::map<std::string, json> values_;
};

class file_store final : public oauth_token_store {
 public:
  file_store(std::filesystem::path path, std::function<json(const json&)> seal,
             std::function<result<json>(const json&)> open)
      : path_(std::move(path)), seal_(std::move(seal)), open_(std::move(open)) {}

  result<json> load(const std::string& key) override {
    if (auto read = read_file(); !read) return read.error();
    if (!doc_.contains(key)) return json();
    return open_(doc_[key]);
  }

  status save(const std::string& key, const json& value) override {
    if (auto read = read_file(); !read) return read.error();
    if (value.is_null()) {
      doc_.erase(key);
    } else {
      doc_[key] = seal_(value);
    }
    return write_file();
  }

 private:
  status read_file() {
    if (loaded_) return {};
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec) && !ec) {
      doc_ = json::object();  // none yet
      loaded_ = true;
      return {};
    }
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
      // Not "none yet": writing now would drop every other server's tokens.
      return make_error(core::errc::invalid_setting, "the OAuth token file " + path_.string() + " cannot be read",
                        "check its owner and mode (600, the server's user)");
    }
    std::stringstream text;
    text << in.rdbuf();
    doc_ = core::parse_json(text.str());
    if (!doc_.is_object()) {
      doc_ = json::object();
      return make_error(core::errc::invalid_setting, "the OAuth token file " + path_.string() + " is not a JSON object",
                        "remove it; the servers will be authorized again");
    }
    loaded_ = true;
    return {};
  }

  status write_file() {
    std::error_code ec;
    std::filesystem::create_directories(path_.parent_path(), ec);
    const auto temp = path_.string() + ".tmp";
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    // A leftover temporary file keeps its old mode: set it.
    if (fd >= 0 && ::fchmod(fd, 0600) != 0) {
      ::close(fd);
      fd = -1;
    }
    if (fd < 0) {
      return make_error(core::errc::invalid_setting,
                        "the OAuth token file " + temp + " cannot be written: " + std::strerror(errno));
    }
    const std::string text = doc_.dump(2) + "\n";
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
    ::close(fd);
    if (!written || std::rename(temp.c_str(), path_.c_str()) != 0) {
      return make_error(core::errc::invalid_setting,
                        "the OAuth token file " + path_.string() + " could not be written");
    }
    return {};
  }

  std::filesystem::path path_;
  std::function<json(const json&)> seal_;
  std::function<result<json>(const json&)> open_;
  json doc_ = json::object();
  bool loaded_ = false;
};

// Users' tokens in memory (a manager given no user_token_store).
class memory_user_store final : public user_token_store {
 public:
  boost::asio::awaitable<result<json>> load(std::string user, std::string server) override {
    co_return values_.load({user, server});
  }
  boost::asio::awaitable<status> save(std::string user, std::string server, json value) override {
    co_return values_.save({user, server}, value);
  }

 private:
  struct keyed {
    result<json> load(const std::pair<std::string, std::string>& key) {
      auto it = map.find(key);
      return it == map.end() ? json() : it->second;
    }
    status save(const std::pair<std::string, std::string>& key, const json& value) {
      if (value.is_null()) {
        map.erase(key);
      } else {
        map[key] = value;
      }
      return {};
    }
    std::map<std::pair<std::string, std::string>, json> map;
  } values_;
};

// What one user's authorizer of a user-scoped server reads and writes: its
// tokens ("tokens:<server>") in the user's own place, the rest (the issuer
// pin, the registered client: one per server) in the shared store.
class user_scoped_store final : public oauth_token_store {
 public:
  user_scoped_store(std::shared_ptr<oauth_token_store> shared, std::shared_ptr<user_token_store> users,
                    std::string user)
      : shared_(std::move(shared)), users_(std::move(users)), user_(std::move(user)) {}

  result<json> load(const std::string& key) override {
    if (is_tokens(key)) return make_error(core::errc::internal_error, "a user's OAuth tokens are read with fetch()");
    return shared_->load(key);
  }
  status save(const std::string& key, const json& value) override {
    if (is_tokens(key)) return make_error(core::errc::internal_error, "a user's OAuth tokens are kept with keep()");
    return shared_->save(key, value);
  }
  boost::asio::awaitable<result<json>> fetch(std::string key) override {
    if (!is_tokens(key)) co_return co_await shared_->fetch(std::move(key));
    co_return co_await users_->load(user_, key.substr(tokens_prefix.size()));
  }
  boost::asio::awaitable<status> keep(std::string key, json value) override {
    if (!is_tokens(key)) co_return co_await shared_->keep(std::move(key), std::move(value));
    co_return co_await users_->save(user_, key.substr(tokens_prefix.size()), std::move(value));
  }

 private:
  static constexpr std::string_view tokens_prefix = "tokens:";
  static bool is_tokens(const std::string& key) { return key.rfind(tokens_prefix, 0) == 0; }

  std::shared_ptr<oauth_token_store> shared_;
  std::shared_ptr<user_token_store> users_;
  std::string user_;
};

}  // namespace

std::shared_ptr<user_token_store> memory_user_token_store() {
  return std::make_shared<memory_user_store>();
}

std::shared_ptr<oauth_token_store> user_scoped_token_store(std::shared_ptr<oauth_token_store> shared,
                                                           std::shared_ptr<user_token_store> users, std::string user) {
  return std::make_shared<user_scoped_store>(std::move(shared), std::move(users), std::move(user));
}

boost::asio::awaitable<result<json>> oauth_token_store::fetch(std::string key) {
  co_return load(key);
}

boost::asio::awaitable<status> oauth_token_store::keep(std::string key, json value) {
  co_return save(key, value);
}

std::shared_ptr<oauth_token_store> memory_token_store() {
  return std::make_shared<memory_store>();
}

std::shared_ptr<oauth_token_store> file_token_store(std::filesystem::path path, std::function<json(const json&)> seal,
                                                    std::function<result<json>(const json&)> open) {
  return std::make_shared<file_store>(std::move(path), std::move(seal), std::move(open));
}

}  // namespace harness::mcp
