#include "harness/pii/pii_cli.hpp"

#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "harness/pii/pii_censor.hpp"
#include "harness/pii/pii_config.hpp"

namespace harness::pii {
namespace {

constexpr const char* usage =
    "usage: mcp-harness pii tokenize [--json]\n"
    "  Reads text from stdin and prints it with personal data replaced by tokens such as [EMAIL_1].\n"
    "  --json  print {\"text\": ..., \"detections\": [{\"kind\", \"start\", \"end\", \"token\"}]}\n"
    "          (start and end are byte offsets into the input)\n"
    "  Honours PII_DETECTORS, PII_PATTERNS_FILE and PII_CUSTOM_PATTERNS like the server.\n";

}  // namespace

int run_pii_cli(const std::vector<std::string>& args, const core::settings& settings, std::istream& in,
                std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? err : out) << usage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "tokenize") {
    err << "error: unknown pii command '" << args[0] << "'\n" << usage;
    return 2;
  }
  bool as_json = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--json") {
      as_json = true;
    } else if (args[i] == "--help" || args[i] == "-h") {
      out << usage;
      return 0;
    } else {
      err << "error: unknown option '" << args[i] << "'\n" << usage;
      return 2;
    }
  }

  auto config = load_pii_config(settings);
  if (!config) {
    err << "error: " << config.error().describe() << "\n";
    return 1;
  }
  auto builder = pii_censor_builder::from_config(*config);
  if (!builder) {
    err << "error: " << builder.error().describe() << "\n";
    return 1;
  }
  auto censor = builder->build();
  if (!censor) {
    err << "error: " << censor.error().describe() << "\n";
    return 1;
  }

  std::string input{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  pii_vault vault;
  std::vector<detection> detections;
  std::string text = censor->tokenize(input, vault, token_policy::escape_all, as_json ? &detections : nullptr);
  if (!as_json) {
    out << text;
    return 0;
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : detections) {
    list.push_back({{"kind", d.kind}, {"start", d.start}, {"end", d.end}, {"token", d.token}});
  }
  nlohmann::json doc = {{"text", text}, {"detections", std::move(list)}};
  out << doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return 0;
}

}  // namespace harness::pii
