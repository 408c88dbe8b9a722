// A fake LLM HTTP server for tests: speaks the OpenAI Chat Completions and
// Anthropic Messages wire formats (bodies, status codes, error bodies,
// headers), answers from a script, and records every request it gets.
// Used in-process (this class) or as a process (fake_llm_server executable).
//
// Endpoints: POST .../chat/completions (OpenAI), POST .../v1/messages
// (Anthropic); control: POST /_fake/script (a step or an array of steps,
// appended), GET /_fake/requests, POST /_fake/reset, GET /_fake/health.
//
// A step (JSON) is one answer, taken in order whatever endpoint is hit:
//   {"reply": {"text": "...", "toolCalls": [{"name": "execute_code",
//              "arguments": {"code": "..."}, "id": "optional"}],
//              "usage": {"inputTokens": 10, "outputTokens": 5}, "stopReason": "optional"}}
//       -> a 200 in the format of the endpoint that was called
//   {"error": {"status": 429, "type": "rate_limit_error", "message": "..."}}
//       -> that status with the API's error body
//   {"status": 200, "body": <JSON or string>}   -> exactly that
//   {"drop": true}        -> close the connection without answering
//   {"malformed": true}   -> 200 with a body that is not JSON
//   {"truncate": true}    -> 200 headers announcing more body than is sent, then close
// Any step may add "headers": {"Retry-After": "1"} and "delayMs": 500 (wait before answering).
// With no step left the answer is a 400 error saying so (never retried).
// Every response closes its connection, so a client retry is always a new
// request the script sees (curl silently resends on a reused connection that died).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace harness::testing {

struct fake_request {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  nlohmann::json json;  // the parsed body, or null
};

class fake_llm_server {
 public:
  // Listens on 127.0.0.1 with a port chosen by the OS (or `port`), serving on its own thread.
  explicit fake_llm_server(unsigned short port = 0);
  ~fake_llm_server();
  fake_llm_server(const fake_llm_server&) = delete;
  fake_llm_server& operator=(const fake_llm_server&) = delete;

  unsigned short port() const;
  std::string openai_base_url() const;     // http://127.0.0.1:PORT/v1
  std::string anthropic_base_url() const;  // http://127.0.0.1:PORT

  // Appends one step, or each step of an array.
  void push(const nlohmann::json& steps);
  // When set, requests must carry this key (Bearer / x-api-key), else a 401 in
  // the API's format that, unlike the real ones, echoes the whole wrong key:
  // tests use it to check that the key never leaks into errors.
  void require_api_key(const std::string& key);
  std::vector<fake_request> requests() const;
  std::size_t steps_left() const;
  // Forgets the script and the recorded requests.
  void reset();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

// Parses a script file: a JSON array of steps. Throws std::runtime_error.
nlohmann::json load_script_file(const std::string& path);

}  // namespace harness::testing
