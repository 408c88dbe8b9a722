// Engine JSON -> engine_types (internal). Each parser fails with
// docker_protocol_error when a field it needs is missing or of the wrong type.
#pragma once

#include <string>
#include <vector>

#include "harness/core/error.hpp"
#include "harness/docker/engine_types.hpp"

namespace harness::docker::detail {

result<version_info> parse_version(const std::string& body);
result<engine_info> parse_info(const std::string& body);
result<image_info> parse_image(const std::string& body);
result<container_state> parse_container_state(const std::string& body);
result<std::vector<container_summary>> parse_container_list(const std::string& body);
result<wait_result> parse_wait(const std::string& body);
result<pids_usage> parse_pids(const std::string& stats_body);

}  // namespace harness::docker::detail
