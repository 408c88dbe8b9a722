// PLACEHOLDER COPY of the store interface being built on branch `store`; replaced at merge.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness::store {
struct task_record {
  std::string id;
  std::string user_id;
  std::string conversation_id;
  std::string task;
  std::string mode;
  std::string status;
  nlohmann::json result;
  nlohmann::json error;
  int turns = 0;
  std::int64_t input_tokens = 0, output_tokens = 0;
  std::int64_t created_ms = 0, started_ms = 0, finished_ms = 0;
  nlohmann::json transcript = nlohmann::json::array();
};
struct event_record {
  std::string task_id;
  std::int64_t seq = 0;
  std::string type;
  nlohmann::json data;
  std::int64_t at_ms = 0;
};
struct conversation_record {
  std::string id, user_id;
  nlohmann::json messages = nlohmann::json::array();
  nlohmann::json vault = nlohmann::json::object();
  std::int64_t created_ms = 0, updated_ms = 0;
};
struct usage_totals {
  std::int64_t tasks = 0, input_tokens = 0, output_tokens = 0;
};
struct task_query {
  std::string user_id;
  std::string status;
  std::size_t limit = 50;
  std::int64_t before_ms = 0;
};

class task_store {
 public:
  virtual ~task_store() = default;
  virtual status create_task(const task_record& task) = 0;
  virtual status update_task(const task_record& task) = 0;
  virtual result<std::optional<task_record>> get_task(const std::string& id) = 0;
  virtual result<std::vector<task_record>> list_tasks(const task_query& q) = 0;
  virtual status append_event(const event_record& event) = 0;
  virtual result<std::vector<event_record>> events(const std::string& task_id, std::int64_t after_seq,
                                                   std::size_t limit = 10000) = 0;
  virtual result<std::optional<conversation_record>> get_conversation(const std::string& id) = 0;
  virtual status save_conversation(const conversation_record& c) = 0;
  virtual status record_usage(const std::string& user_id, const std::string& task_id, std::int64_t input_tokens,
                              std::int64_t output_tokens, std::int64_t at_ms) = 0;
  virtual result<usage_totals> usage(const std::string& user_id, std::int64_t since_ms = 0) = 0;
  virtual result<std::size_t> mark_interrupted(std::int64_t now_ms) = 0;
  virtual result<std::size_t> delete_finished_before(std::int64_t cutoff_ms) = 0;
  virtual int schema_version() const = 0;
};
result<std::shared_ptr<task_store>> open_sqlite_store(const std::filesystem::path& file);
}  // namespace harness::store
