// Server-Sent Events of a task: each event becomes "id: <seq>\nevent: <type>\n
// data: <json>\n\n", with a comment line as keep-alive while nothing happens.
#pragma once

#include <memory>

#include "harness/agent/agent_manager.hpp"
#include "harness/http/message.hpp"

namespace harness::http {

http_response sse_response(std::shared_ptr<agent::task_event_stream> events, unsigned status = 200);

}  // namespace harness::http
