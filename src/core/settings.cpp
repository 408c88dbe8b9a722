#include "harness/core/settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

namespace harness::core {
namespace {

const setting_spec* find_spec(std::span<const setting_spec> specs, const std::string& name) {
  for (const auto& spec : specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

error invalid(const std::string& name, const std::string& value, const std::string& rule) {
  return make_error(core::errc::invalid_setting, fmt::format("invalid {}: '{}' {}", name, value, rule),
                    fmt::format("set {} (or {}) to a valid value; see --help", name, flag_name(name)));
}

}  // namespace

std::string flag_name(const std::string& setting_name) {
  std::string flag = "--";
  for (char c : setting_name) flag.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(c)));
  return flag;
}

std::map<std::string, std::string> environment_of(std::span<const setting_spec> specs) {
  std::map<std::string, std::string> env;
  for (const auto& spec : specs) {
    if (const char* value = std::getenv(spec.name.c_str())) env[spec.name] = value;
  }
  return env;
}

result<settings> settings::resolve(std::span<const setting_spec> specs, const setting_sources& sources) {
  settings out;
  for (const auto& spec : specs) {
    out.values_[spec.name] = spec.default_value;
    out.explicit_[spec.name] = false;
  }
  auto apply = [&](const std::map<std::string, std::string>& layer) {
    for (const auto& [name, value] : layer) {
      if (!find_spec(specs, name)) continue;
      out.values_[name] = value;
      out.explicit_[name] = true;
    }
  };
  if (sources.dotenv_text) {
    auto dotenv = parse_dotenv(*sources.dotenv_text);
    if (!dotenv) return dotenv.error();
    apply(*dotenv);
  }
  apply(sources.env);

  std::map<std::string, std::string> flags;
  for (std::size_t i = 0; i < sources.args.size(); ++i) {
    const std::string& arg = sources.args[i];
    if (arg.rfind("--", 0) != 0) {
      return make_error(core::errc::invalid_argument, fmt::format("unexpected argument '{}'", arg),
                        "settings are given as --name value; see --help");
    }
    std::string flag = arg;
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const setting_spec& s) { return flag_name(s.name) == flag; });
    if (spec == specs.end()) {
      return make_error(core::errc::invalid_argument, fmt::format("unknown flag '{}'", flag),
                        "see --help for the list");
    }
    if (!has_value) {
      if (i + 1 >= sources.args.size()) {
        return make_error(core::errc::invalid_argument, fmt::format("flag '{}' needs a value", flag),
                          fmt::format("write {} VALUE or {}=VALUE", flag, flag));
      }
      value = sources.args[++i];
    }
    flags[spec->name] = value;
  }
  apply(flags);
  return out;
}

const std::string& settings::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("setting '" + name + "' was never declared");
  return it->second;
}

bool settings::is_set_explicitly(const std::string& name) const {
  auto it = explicit_.find(name);
  return it != explicit_.end() && it->second;
}

result<std::int64_t> settings::get_int(const std::string& name, std::int64_t min, std::int64_t max) const {
  const std::string& text = get(name);
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) {
    return invalid(name, text, "is not a whole number");
  }
  if (value < min || value > max) {
    return invalid(name, text, fmt::format("is out of range ({}..{})", min, max));
  }
  return value;
}

result<bool> settings::get_bool(const std::string& name) const {
  std::string text = get(name);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  return invalid(name, get(name), "is not a boolean (true/false, 1/0, yes/no, on/off)");
}

result<std::chrono::milliseconds> settings::get_ms(const std::string& name, std::int64_t min_ms,
                                                   std::int64_t max_ms) const {
  auto value = get_int(name, min_ms, max_ms);
  if (!value) return value.error();
  return std::chrono::milliseconds(*value);
}

result<std::string> settings::get_choice(const std::string& name, const std::vector<std::string>& allowed) const {
  const std::string& text = get(name);
  if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return text;
  return invalid(name, text, fmt::format("is not one of: {}", fmt::join(allowed, ", ")));
}

std::string help_text(std::span<const setting_spec> specs, const std::string& usage) {
  std::string out = usage +
                    "\n\nEvery setting can be given as an environment variable, in a .env file, or as a flag\n"
                    "(flags win over the environment, which wins over .env, which wins over the default).\n\n";
  std::size_t width = 0;
  for (const auto& spec : specs) width = std::max(width, spec.name.size() + flag_name(spec.name).size() + 2);
  for (const auto& spec : specs) {
    std::string left = spec.name + ", " + flag_name(spec.name);
    std::string def = spec.secret                  ? "(secret, no default)"
                      : spec.default_value.empty() ? "(empty)"
                                                   : spec.default_value;
    out += fmt::format("  {:<{}}  {}\n  {:<{}}  default: {}\n", left, width, spec.help, "", width, def);
  }
  return out;
}

}  // namespace harness::core
