// libFuzzer target for the PII censor. For any bytes: no crash, no sanitizer
// report, and detokenize(tokenize(x)) == x, also through a vault that went
// through JSON and under both token policies. Inputs that parse as JSON also
// go through tokenize_json, whose output must be valid JSON. With the
// built-ins alone, the start finder finds exactly what the unanchored scan
// finds.
//
//   fuzz/pii/run.sh 60     # build with clang and fuzz for 60 seconds
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "builtin_detectors.hpp"
#include "harness/pii/pii_censor.hpp"
#include "pii_engine.hpp"

namespace {

using namespace harness::pii;

const pii_censor& censor() {
  static const pii_censor c = [] {
    pii_censor_builder b;
    if (!b.add_pattern("custom_id", R"(\bID-\d{6}\b)") || !b.add_pattern("word", R"(\bsecret\w*)")) std::abort();
    auto built = b.build();
    if (!built) std::abort();
    return std::move(*built);
  }();
  return c;
}

// The built-ins compiled twice: with the start finder, and scanning unanchored.
const std::pair<harness::pii::detail::pii_engine, harness::pii::detail::pii_engine>& builtin_engines() {
  using harness::pii::detail::pii_engine;
  static const auto engines = [] {
    std::vector<harness::pii::detail::kind_source> kinds;
    for (const auto& d : harness::pii::detail::builtin_detectors())
      kinds.push_back({std::string(d.name), std::string(d.pattern), d.validate});
    auto fast = pii_engine::compile(kinds), full = pii_engine::compile(kinds, /*find_starts=*/false);
    if (!fast || !full || !fast->finds_starts()) std::abort();
    return std::pair<pii_engine, pii_engine>(std::move(*fast), std::move(*full));
  }();
  return engines;
}

std::vector<std::size_t> scan_all(const harness::pii::detail::pii_engine& engine, std::string_view text) {
  std::vector<std::size_t> out;
  engine.scan(text, [&](std::size_t kind, std::size_t start, std::size_t end) {
    out.insert(out.end(), {kind, start, end});
  });
  return out;
}

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "pii_fuzz: property failed: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& c = censor();

  pii_vault vault;
  std::vector<detection> found;
  std::string once = c.tokenize(text, vault, token_policy::escape_all, &found);
  check(detokenize(once, vault) == text, "detokenize(tokenize(x)) == x");
  for (const auto& d : found) check(d.start < d.end && d.end <= text.size(), "detection inside the input");

  // The same vault again: values keep their tokens, literals stay escaped.
  std::string twice = c.tokenize(text, vault);
  check(detokenize(twice, vault) == text, "round trip with a used vault");

  // keep_issued on a fresh vault trusts nothing issued before the call.
  pii_vault fresh;
  check(detokenize(c.tokenize(text, fresh, token_policy::keep_issued), fresh) == text, "keep_issued round trip");

  // The vault survives JSON.
  auto restored = pii_vault::from_json(nlohmann::json::parse(vault.to_json().dump()));
  check(static_cast<bool>(restored), "vault JSON round trip");
  check(detokenize(once, *restored) == text, "round trip through a restored vault");

  const auto& [fast, full] = builtin_engines();
  check(scan_all(fast, text) == scan_all(full, text), "start finder == unanchored scan");

  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_discarded()) {
    pii_vault jv;
    auto censored = c.tokenize_json(doc, jv);
    if (censored) {
      check(nlohmann::json::accept(censored->dump()), "tokenize_json gives valid JSON");
      check(static_cast<bool>(detokenize_json(*censored, jv)), "detokenize_json works");
    }
  }
  return 0;
}
