// The frame_channel of a sandbox container: its attached stdin for frames to
// the runtime, its demultiplexed stdout for frames back. stderr carries the
// runtime's diagnostics and goes to our log (capped, so a flood cannot fill it).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "harness/bridge/frame_channel.hpp"
#include "harness/docker/engine_client.hpp"

namespace harness::execution {

// `stream` must outlive the channel. `label` names the container in log lines.
std::unique_ptr<bridge::frame_channel> create_attach_frame_channel(docker::attach_stream& stream, std::string label,
                                                                   std::size_t max_line = 16 * 1024 * 1024);

}  // namespace harness::execution
