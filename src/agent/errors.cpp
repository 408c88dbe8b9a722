#include "harness/agent/errors.hpp"

namespace harness::agent {
namespace {

class category final : public harness::error_category {
 public:
  const char* name() const noexcept override { return "agent"; }

  std::string_view wire_name(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::stopping:
        return "agent_stopping";
      case errc::user_busy:
        return "user_busy";
      case errc::agent_busy:
        return "agent_busy";
      case errc::conversation_not_found:
        return "conversation_not_found";
      case errc::conversation_busy:
        return "conversation_busy";
      case errc::task_finished:
        return "task_finished";
      case errc::task_timeout:
        return "task_timeout";
      case errc::interrupted:
        return "interrupted";
      case errc::max_turns:
        return "max_turns";
      case errc::budget_exceeded:
        return "budget_exceeded";
      case errc::approval_not_found:
        return "approval_not_found";
      case errc::approval_decided:
        return "approval_decided";
      case errc::task_elsewhere:
        return "task_elsewhere";
      case errc::no_llm:
        return "llm_not_configured";
    }
    return {};
  }

  unsigned http_status(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::stopping:
      case errc::task_timeout:
      case errc::interrupted:
      case errc::max_turns:
      case errc::budget_exceeded:
        return 503;
      case errc::user_busy:
      case errc::agent_busy:
        return 429;
      case errc::conversation_not_found:
      case errc::approval_not_found:
        return 404;
      case errc::conversation_busy:
      case errc::task_finished:
      case errc::approval_decided:
        return 409;
      case errc::task_elsewhere:
        return 421;  // Misdirected Request: another replica holds it
      case errc::no_llm:
        return 503;
    }
    return 0;
  }
};

}  // namespace

const harness::error_category& errc_category() noexcept {
  static const category instance;
  return instance;
}

}  // namespace harness::agent
