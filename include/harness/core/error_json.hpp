// The one JSON shape of a harness::error, wherever an error is written out
// (HTTP bodies, task events, replies to sandbox code):
// {"code": wire name, "message": ..., "hint": ... only when there is one}.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/core/error.hpp"

namespace harness {

nlohmann::json error_json(const error& e);

}  // namespace harness
