// A user's secrets in that user's instance of a user-scoped server:
// `${secret:NAME}` filled in from the user's values when the instance starts,
// and the secret_mask that keeps the values inside the instance. Whatever
// comes back from the instance (results, errors, its stderr lines, its tool
// list) has each value replaced by a token such as [SECRET_1]; the token in
// the arguments of a call to the same instance becomes the value again. A
// token reaching any other server stays a token.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/mcp/config.hpp"

namespace harness::mcp::detail {

// The names `server`'s args, env and headers write as ${secret:NAME}, sorted,
// each once. Error invalid_config for a name that is not a valid one.
result<std::vector<std::string>> secret_names(const server_config& server);

// `server` with each ${secret:NAME} replaced by values[NAME]. Error
// secret_missing for the first name `values` lacks, naming how `user` sets it.
result<server_config> fill_secrets(server_config server, const std::map<std::string, std::string>& values,
                                   const std::string& user);

class secret_mask {
 public:
  // Tokens are numbered in the order of `values` (by name), from 1.
  explicit secret_mask(const std::map<std::string, std::string>& values);

  // Each value, and its JSON-escaped form, replaced by its token.
  std::string censor(std::string text) const;
  nlohmann::json censor(nlohmann::json value) const;  // every string and key
  error censor(error e) const;
  // Each token in a string of `arguments` replaced by its value.
  nlohmann::json restore(nlohmann::json arguments) const;

 private:
  struct entry {
    std::string value;
    std::string escaped;  // as it appears inside a JSON string (may equal value)
    std::string token;
  };
  std::vector<entry> entries_;  // longest value first: one containing another is replaced whole
};

}  // namespace harness::mcp::detail
