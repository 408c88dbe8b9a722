#include "record_replay.hpp"
#include "harness/core/json_parse.hpp"

#include <chrono>
#include <fstream>
#include <mutex>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "harness/core/logging.hpp"
#include "harness/llm/errors.hpp"
#include "retry.hpp"

namespace harness::llm {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

std::string utc_now(core::clock& clock) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(clock.system_now().time_since_epoch()).count();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(static_cast<std::time_t>(seconds)));
}

class recording_provider final : public llm_provider {
 public:
  recording_provider(core::clock& clock, std::shared_ptr<llm_provider> inner, std::string path, std::string model,
                     std::string api_key)
      : clock_(clock),
        inner_(std::move(inner)),
        path_(std::move(path)),
        model_(std::move(model)),
        api_key_(std::move(api_key)) {}

  status open() {
    out_.open(path_, std::ios::app | std::ios::binary);
    if (!out_) {
      return make_error(core::errc::invalid_setting,
                        fmt::format("cannot open LLM_RECORD file '{}' for appending", path_),
                        "check that its folder exists and is writable");
    }
    return {};
  }

  std::string name() const override { return inner_->name(); }

  asio::awaitable<result<llm_turn>> complete(llm_request request) override {
    json line{{"v", 1},
              {"ts", utc_now(clock_)},
              {"provider", inner_->name()},
              {"model", model_},
              {"request", to_json(request)}};
    auto turn = co_await inner_->complete(std::move(request));
    if (turn) {
      line["turn"] = to_json(*turn);
    } else {
      line["error"] = to_json(turn.error());
    }
    // One short append per LLM call (which itself took far longer); written
    // whole under the lock so concurrent tasks never interleave lines.
    std::string text = detail::redact(line.dump(-1, ' ', false, json::error_handler_t::replace), api_key_);
    {
      std::lock_guard lock(mutex_);
      out_ << text << '\n';
      out_.flush();
      if (!out_) core::log_warn("could not append to LLM_RECORD file '{}'", path_);
    }
    co_return turn;
  }

 private:
  core::clock& clock_;
  std::shared_ptr<llm_provider> inner_;
  std::string path_, model_, api_key_;
  std::mutex mutex_;
  std::ofstream out_;
};

struct replay_entry {
  result<llm_turn> reply;
  std::size_t messages = 0;  // size of the recorded conversation, to notice a diverging agent
};

class replay_provider final : public llm_provider {
 public:
  replay_provider(std::string path, std::vector<replay_entry> entries)
      : path_(std::move(path)), entries_(std::move(entries)) {}

  std::string name() const override { return "replay"; }

  asio::awaitable<result<llm_turn>> complete(llm_request request) override {
    std::size_t index = 0;
    {
      std::lock_guard lock(mutex_);
      index = next_++;
    }
    if (index >= entries_.size()) {
      co_return make_error(llm::errc::replay_exhausted,
                           fmt::format("the replay file '{}' has {} replies and all were used", path_, entries_.size()),
                           "record a longer session with LLM_RECORD, or the agent took more turns than recorded");
    }
    const auto& entry = entries_[index];
    if (entry.messages != request.messages.size()) {
      core::log_warn("replay {}: reply {} was recorded for {} messages, the conversation has {}", path_, index + 1,
                     entry.messages, request.messages.size());
    }
    co_return entry.reply;
  }

 private:
  std::string path_;
  std::vector<replay_entry> entries_;
  std::mutex mutex_;
  std::size_t next_ = 0;
};

}  // namespace

result<std::shared_ptr<llm_provider>> create_recording_provider(core::clock& clock, std::shared_ptr<llm_provider> inner,
                                                                const std::string& path, const std::string& model,
                                                                const std::string& api_key) {
  auto p = std::make_shared<recording_provider>(clock, std::move(inner), path, model, api_key);
  if (auto st = p->open(); !st) return st.error();
  return std::shared_ptr<llm_provider>(std::move(p));
}

result<std::shared_ptr<llm_provider>> create_replay_provider(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(core::errc::invalid_setting, fmt::format("cannot read LLM_REPLAY_FILE '{}'", path),
                      "point LLM_REPLAY_FILE at a file written with LLM_RECORD");
  }
  std::vector<replay_entry> entries;
  std::string text;
  for (int line_no = 1; std::getline(in, text); ++line_no) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto bad = [&](const std::string& why) {
      return make_error(core::errc::invalid_setting,
                        fmt::format("LLM_REPLAY_FILE '{}' line {}: {}", path, line_no, why),
                        "each line must be one exchange as written by LLM_RECORD");
    };
    json j = core::parse_json(text);
    if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
    replay_entry entry{make_error(llm::errc::replay_invalid, "unset")};
    if (j.contains("turn")) {
      auto turn = turn_from_json(j["turn"]);
      if (!turn) return bad(turn.error().message);
      entry.reply = std::move(*turn);
    } else if (j.contains("error")) {
      entry.reply = error_from_json(j["error"]);
    } else {
      return bad("neither \"turn\" nor \"error\"");
    }
    if (j.contains("request") && j["request"].is_object() && j["request"].contains("messages") &&
        j["request"]["messages"].is_array()) {
      entry.messages = j["request"]["messages"].size();
    }
    entries.push_back(std::move(entry));
  }
  return std::shared_ptr<llm_provider>(std::make_shared<replay_provider>(path, std::move(entries)));
}

}  // namespace harness::llm
