#include "harness/policy/tool_policy.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "harness/core/ids.hpp"

namespace harness::policy {
namespace {

using json = nlohmann::json;

error invalid(std::string message) {
  return make_error(errc::invalid_policy, std::move(message),
                    "see docs/POLICY.md for the format; fix TOOL_POLICY_FILE (a running server keeps its last good "
                    "policy meanwhile)");
}

result<approval_mode> approval_of(const json& value, const std::string& where) {
  if (value == "never") return approval_mode::never;
  if (value == "ask") return approval_mode::ask;
  if (value == "deny") return approval_mode::deny;
  return invalid(fmt::format("{}: \"approval\" must be \"never\", \"ask\" or \"deny\"", where));
}

result<pii_grant> pii_of(const json& value, const std::vector<std::string>& known, const std::string& where) {
  if (value == "all") return pii_grant{};
  if (value == "none") return pii_grant{.all = false, .kinds = {}};
  if (!value.is_array()) {
    return invalid(fmt::format("{}: \"pii\" must be \"all\", \"none\" or a list of kinds such as [\"email\"]", where));
  }
  pii_grant grant{.all = false, .kinds = {}};
  for (const auto& kind : value) {
    if (!kind.is_string() || std::find(known.begin(), known.end(), kind.get<std::string>()) == known.end()) {
      return invalid(fmt::format("{}: \"pii\" lists {}, which is not a PII kind of this server (it has: {})", where,
                                 kind.dump(), fmt::join(known, ", ")));
    }
    grant.kinds.push_back(kind.get<std::string>());
  }
  return grant;
}

result<tool_rule> rule_of(const json& value, std::size_t index, const std::vector<std::string>& known) {
  const std::string where = fmt::format("rule {}", index + 1);
  if (!value.is_object())
    return invalid(where + " must be an object such as {\"tool\": \"fs__*\", \"approval\": \"ask\"}");
  tool_rule rule;
  for (const auto& [key, field] : value.items()) {
    if (key == "tool") {
      if (!field.is_string() || field.get<std::string>().empty() || field.get<std::string>().size() > 200) {
        return invalid(where + ": \"tool\" must be a tool name or a glob (1-200 characters)");
      }
      rule.tool = field.get<std::string>();
    } else if (key == "approval") {
      auto approval = approval_of(field, where);
      if (!approval) return approval.error();
      rule.approval = *approval;
    } else if (key == "pii") {
      auto pii = pii_of(field, known, where);
      if (!pii) return pii.error();
      rule.pii = std::move(*pii);
    } else if (key == "users") {
      if (!field.is_array() || field.empty() || field.size() > 1000) {
        return invalid(where + ": \"users\" must be a list of 1 to 1000 user ids such as [\"alice\"]");
      }
      for (const auto& user : field) {
        if (!user.is_string() || !core::is_safe_id(user.get<std::string>(), 64)) {
          return invalid(
              fmt::format("{}: \"users\" lists {}, which is not a user id (letters, digits, '.', '_', "
                          "'-'; at most 64)",
                          where, user.dump().substr(0, 80)));
        }
        rule.users.push_back(user.get<std::string>());
      }
    } else if (key == "role") {
      if (field != "admin" && field != "user") {
        return invalid(where + ": \"role\" must be \"admin\" or \"user\"");
      }
      rule.admin = field == "admin";
    } else if (key == "maxCallsPerTask") {
      if (!field.is_number_unsigned() || field.get<std::uint64_t>() > 1'000'000) {
        return invalid(where + ": \"maxCallsPerTask\" must be a whole number from 0 to 1000000");
      }
      rule.max_calls_per_task = field.get<std::size_t>();
    } else {
      return invalid(
          fmt::format("{}: unknown field \"{}\" (a rule has tool, users, role, approval, pii, "
                      "maxCallsPerTask)",
                      where, key.substr(0, 60)));
    }
  }
  if (rule.tool.empty()) return invalid(where + " has no \"tool\"");
  return rule;
}

// The default approval of a tool without a rule that says: its annotations
// when APPROVAL_DEFAULT=annotations. A hint that is not a boolean counts as absent.
void annotation_default(const json& annotations, tool_decision& out) {
  auto hint = [&](const char* name) {
    auto it = annotations.is_object() ? annotations.find(name) : annotations.end();
    return it != annotations.end() && it->is_boolean() && it->get<bool>();
  };
  for (const char* name : {"destructiveHint", "openWorldHint"}) {
    if (hint(name)) {
      out.approval = approval_mode::ask;
      out.reason = fmt::format("annotations ({})", name);
      return;
    }
  }
  out.approval = approval_mode::never;
  out.reason = hint("readOnlyHint") ? "annotations (readOnlyHint)" : "annotations (no hint)";
}

}  // namespace

std::string_view to_string(approval_mode mode) {
  switch (mode) {
    case approval_mode::never:
      return "never";
    case approval_mode::ask:
      return "ask";
    case approval_mode::deny:
      return "deny";
  }
  return "never";
}

bool pii_grant::allows(std::string_view kind) const {
  return all || std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative with one backtrack point: linear in practice, never exponential.
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

result<tool_policy> tool_policy::parse(const json& document, const std::vector<std::string>& known_kinds,
                                       approval_default fallback) {
  if (!document.is_object()) return invalid("the policy must be a JSON object {\"rules\": [...]}");
  for (const auto& [key, value] : document.items()) {
    if (key != "rules")
      return invalid(fmt::format("unknown field \"{}\" (the policy has only \"rules\")", key.substr(0, 60)));
  }
  auto rules = document.find("rules");
  if (rules == document.end() || !rules->is_array()) return invalid("\"rules\" must be a list of rules");
  if (rules->size() > 1000) return invalid("at most 1000 rules");
  tool_policy policy;
  policy.fallback_ = fallback;
  for (std::size_t i = 0; i < rules->size(); ++i) {
    auto rule = rule_of((*rules)[i], i, known_kinds);
    if (!rule) return rule.error();
    policy.rules_.push_back(std::move(*rule));
  }
  return policy;
}

namespace {

bool applies_to(const tool_rule& rule, const caller_identity& who) {
  if (rule.admin && *rule.admin != who.admin) return false;
  return rule.users.empty() || std::find(rule.users.begin(), rule.users.end(), who.user) != rule.users.end();
}

}  // namespace

tool_decision tool_policy::decide(std::string_view tool, const json& annotations, const caller_identity& who) const {
  tool_decision out;
  const tool_rule* rule = nullptr;
  std::size_t index = 0;
  for (; index < rules_.size(); ++index) {
    if (glob_match(rules_[index].tool, tool) && applies_to(rules_[index], who)) {
      rule = &rules_[index];
      break;
    }
  }
  if (rule && rule->approval) {
    out.approval = *rule->approval;
    out.reason = fmt::format("rule {} ({})", index + 1, rule->tool);
  } else if (fallback_ == approval_default::annotations) {
    annotation_default(annotations, out);
  }
  if (rule) {
    if (rule->pii) out.pii = *rule->pii;
    out.max_calls_per_task = rule->max_calls_per_task;
    if (!rule->approval) out.reason = fmt::format("rule {} ({}), approval by {}", index + 1, rule->tool, out.reason);
  }
  return out;
}

}  // namespace harness::policy
