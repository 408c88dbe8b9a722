// The tool policy: an ordered list of rules by tool name or glob that say,
// for each tool the code may call, whether a call needs approval (or is
// denied), which kinds of PII values it may receive in place of the tokens the
// code passes, and how many calls one task may make. First match wins. Pure:
// parsing and deciding, no I/O (policy_source.hpp reads and follows the file).
//
//   {"rules": [{"tool": "mem__create_entities", "approval": "ask"},
//              {"tool": "billing__*", "users": ["alice", "bob"], "approval": "never"},
//              {"tool": "billing__*", "approval": "deny"},
//              {"tool": "admin__*", "role": "user", "approval": "deny"},
//              {"tool": "everything__*", "pii": "none"},
//              {"tool": "*", "approval": "never", "pii": "all"}]}
//
// A rule with "users" applies only to calls made for those users, one with
// "role" only to calls whose request came with that kind of key ("admin": an
// admin key, the open caller of a server without keys, or the operator's
// stdio face; "user": a user key).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"
#include "harness/policy/errors.hpp"

namespace harness::policy {

enum class approval_mode { never, ask, deny };
std::string_view to_string(approval_mode mode);

// Where a tool's approval comes from when no rule gives one (APPROVAL_DEFAULT):
// `never`, or from the tool's MCP annotations (destructiveHint or
// openWorldHint: ask; readOnlyHint: never).
enum class approval_default { never, annotations };

// Which kinds of raw values (detector names: "email", "phone", ...) a tool
// gets back for the tokens in its arguments. The others reach it as the token
// text ("[EMAIL_1]").
struct pii_grant {
  bool all = true;
  std::vector<std::string> kinds{};  // when !all
  bool allows(std::string_view kind) const;
};

// Who a call is made for: what a rule's "users" and "role" are matched against.
struct caller_identity {
  std::string user;    // the acting user's id; empty: matches no "users" rule
  bool admin = false;  // the request came with admin rights (see above)
};

struct tool_rule {
  std::string tool;                  // a name, or a glob with * and ?
  std::vector<std::string> users{};  // empty: every user
  std::optional<bool> admin{};       // "role": "admin" (true) or "user" (false); none: either
  std::optional<approval_mode> approval{};
  std::optional<pii_grant> pii{};
  std::optional<std::size_t> max_calls_per_task{};
};

// What the policy says about one tool.
struct tool_decision {
  approval_mode approval = approval_mode::never;
  pii_grant pii{};
  std::optional<std::size_t> max_calls_per_task{};
  // Why: "rule 2 (everything__*)", "annotations (destructiveHint)", "default".
  std::string reason = "default";
};

class tool_policy {
 public:
  tool_policy() = default;  // no rules: every call allowed, every value restored

  // The file's JSON. Unknown fields, wrong types, an empty or malformed glob
  // and PII kinds not in `known_kinds` are errors (invalid_policy) naming the
  // rule and the field.
  static result<tool_policy> parse(const nlohmann::json& document, const std::vector<std::string>& known_kinds,
                                   approval_default fallback = approval_default::never);

  // What the first rule that matches `tool` says; a field it leaves out has
  // its default (approval from APPROVAL_DEFAULT, every PII kind, no call
  // limit). `annotations` is the tool's MCP annotations object (or null).
  // `who`: for rules that name users or a role (a rule that names them does
  // not match a caller it does not name).
  tool_decision decide(std::string_view tool, const nlohmann::json& annotations, const caller_identity& who = {}) const;

  std::size_t size() const { return rules_.size(); }
  // Whether decide() reads the tools' annotations (APPROVAL_DEFAULT=annotations).
  bool uses_annotations() const { return fallback_ == approval_default::annotations; }

 private:
  std::vector<tool_rule> rules_;
  approval_default fallback_ = approval_default::never;
};

// `*` matches any run of characters, `?` one character; nothing else is special.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace harness::policy
