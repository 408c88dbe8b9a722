#include "harness/core/error_json.hpp"

namespace harness {

nlohmann::json error_json(const error& e) {
  nlohmann::json out{{"code", e.code.wire_name()}, {"message", e.message}};
  if (!e.hint.empty()) out["hint"] = e.hint;
  return out;
}

}  // namespace harness
