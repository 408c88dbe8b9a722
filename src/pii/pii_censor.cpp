#include "harness/pii/pii_censor.hpp"
#include "harness/pii/errors.hpp"

#include <algorithm>

#include "pii_engine.hpp"

namespace harness::pii {

pii_censor::pii_censor(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
pii_censor::~pii_censor() = default;
pii_censor::pii_censor(pii_censor&&) noexcept = default;
pii_censor& pii_censor::operator=(pii_censor&&) noexcept = default;

std::vector<detection> pii_censor::detect(std::string_view text) const {
  std::vector<detection> found;
  impl_->engine.scan(text, [&](std::size_t kind, std::size_t start, std::size_t end) {
    found.push_back(detection{impl_->engine.kind(kind).name, start, end, {}});
  });
  return found;
}

std::string pii_censor::tokenize(std::string_view text, pii_vault& vault, token_policy policy,
                                 std::vector<detection>* detections) const {
  std::string out;
  tokenize_into(out, text, vault, policy, detections);
  return out;
}

void pii_censor::tokenize_into(std::string& out, std::string_view text, pii_vault& vault, token_policy policy,
                               std::vector<detection>* detections) const {
  const auto& engine = impl_->engine;
  const std::size_t issued_before = vault.size();
  // Room for the text and some tokens longer than their values, at once: a
  // buffer grown by doubling copies and faults in far more memory (the first
  // call on 32 MiB cost 2-3x a later one). std::string keeps growth geometric
  // across calls that append to the same buffer.
  out.reserve(out.size() + text.size() + text.size() / 16);
  std::size_t copied = 0;
  engine.scan(text, [&](std::size_t kind, std::size_t start, std::size_t end) {
    std::string_view value = text.substr(start, end - start);
    if (kind == detail::pii_engine::token_kind && policy == token_policy::keep_issued) {
      // One of ours from an earlier call: it already stands for its value.
      if (vault.issue_index(value.substr(1, value.size() - 2)) < issued_before) return;
    }
    const std::string& token = vault.token_for(engine.kind(kind).token_kind, value);
    out.append(text.substr(copied, start - copied));
    out.append(token);
    copied = end;
    if (detections) detections->push_back(detection{engine.kind(kind).name, start, end, token});
  });
  out.append(text.substr(copied));
}

std::vector<std::string> pii_censor::detector_names() const {
  std::vector<std::string> names;
  for (std::size_t i = 1; i < impl_->engine.kind_count(); ++i) names.push_back(impl_->engine.kind(i).name);
  return names;
}

pii_censor_builder::pii_censor_builder() = default;

result<pii_censor_builder> pii_censor_builder::from_config(const pii_config& config) {
  pii_censor_builder builder;
  for (const auto& d : detail::builtin_detectors()) {
    bool on = std::find(config.detectors.begin(), config.detectors.end(), d.name) != config.detectors.end();
    if (!on) builder.disabled_builtins_.emplace_back(d.name);
  }
  for (const auto& name : config.detectors) {
    if (!builder.enable(name, true)) {
      return make_error(core::errc::invalid_setting, "PII_DETECTORS: unknown detector '" + name + "'",
                        "use any of email, phone, ssn, card, ipv4, ipv6, or all / none");
    }
  }
  for (const auto& [name, pattern] : config.custom_patterns) {
    if (auto added = builder.add_pattern(name, pattern); !added) return added.error();
  }
  return builder;
}

status pii_censor_builder::add_pattern(std::string_view name, std::string_view pattern) {
  auto checked = detail::check_custom_pattern(name, pattern);
  if (!checked) return checked.error();
  for (const auto& c : custom_) {
    if (detail::same_name(c.name, name)) {
      return make_error(pii::errc::invalid_pattern, "PII pattern '" + std::string(name) + "' is defined twice",
                        "give each custom pattern its own name");
    }
  }
  custom_.push_back(custom{std::string(name), std::string(pattern), true});
  return {};
}

status pii_censor_builder::enable(std::string_view name, bool on) {
  for (const auto& d : detail::builtin_detectors()) {
    if (d.name != name) continue;
    std::erase(disabled_builtins_, std::string(name));
    if (!on) disabled_builtins_.emplace_back(name);
    return {};
  }
  for (auto& c : custom_) {
    if (c.name == name) {
      c.enabled = on;
      return {};
    }
  }
  return make_error(pii::errc::unknown_detector, "no PII detector named '" + std::string(name) + "'",
                    "built-in detectors: email, phone, ssn, card, ipv4, ipv6");
}

result<pii_censor> pii_censor_builder::build() const {
  std::vector<detail::kind_source> kinds;
  for (const auto& c : custom_) {
    if (c.enabled) kinds.push_back(detail::kind_source{c.name, c.pattern, nullptr});
  }
  for (const auto& d : detail::builtin_detectors()) {
    if (std::find(disabled_builtins_.begin(), disabled_builtins_.end(), d.name) == disabled_builtins_.end()) {
      kinds.push_back(detail::kind_source{std::string(d.name), std::string(d.pattern), d.validate});
    }
  }
  auto engine = detail::pii_engine::compile(std::move(kinds));
  if (!engine) return engine.error();
  auto p = std::make_unique<pii_censor::impl>(pii_censor::impl{std::move(*engine)});
  return pii_censor(std::move(p));
}

}  // namespace harness::pii
