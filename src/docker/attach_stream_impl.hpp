// The hijacked attach connection behind docker::attach_stream (internal).
#pragma once

#include "engine_connection.hpp"
#include "harness/docker/engine_client.hpp"

namespace harness::docker::detail {

class attach_stream_impl final : public attach_stream {
 public:
  // leftover: bytes the HTTP parser read past the upgrade answer (the first frames).
  attach_stream_impl(std::unique_ptr<connection> conn, std::string leftover);
  ~attach_stream_impl() override;

  task<status> write_stdin(std::string_view data, std::chrono::milliseconds timeout) override;
  status close_stdin() override;
  task<result<std::optional<output_chunk>>> read(std::chrono::milliseconds timeout) override;
  void close() override;

 private:
  std::unique_ptr<connection> conn_;
  frame_demuxer demuxer_;
  bool ended_ = false;
  bool closed_ = false;
};

}  // namespace harness::docker::detail
