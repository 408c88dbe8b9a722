// A frame_channel over a pair of pipe file descriptors, e.g. the stdin and
// stdout of a runtime started as a local child process (tests, development),
// or over a connected socket (the call socket).
#pragma once

#include <cstddef>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "harness/bridge/frame_channel.hpp"

namespace harness::bridge {

// Takes ownership of both descriptors. Lines longer than max_line fail with
// "frame_too_large".
std::unique_ptr<frame_channel> create_pipe_frame_channel(const boost::asio::any_io_executor& executor, int read_fd,
                                                         int write_fd, std::size_t max_line = 16 * 1024 * 1024);

// The same over one connected stream socket (reads and writes share it).
// Takes ownership of `fd`; null when the process is out of descriptors.
std::unique_ptr<frame_channel> create_socket_frame_channel(const boost::asio::any_io_executor& executor, int fd,
                                                           std::size_t max_line = 16 * 1024 * 1024);

}  // namespace harness::bridge
