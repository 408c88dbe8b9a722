#include "harness/docker/frame_demuxer.hpp"

#include <gtest/gtest.h>

#include "docker/fake_engine.hpp"

namespace harness::docker {
namespace {

std::string frame(std::uint8_t stream, const std::string& payload) {
  return testing::attach_frame(stream, payload);
}

std::string drain(frame_demuxer& d, output_stream want) {
  std::string out;
  while (auto c = d.next()) {
    if (c->stream == want) out += c->data;
  }
  return out;
}

TEST(FrameDemuxer, SplitsStdoutAndStderr) {
  frame_demuxer d;
  ASSERT_TRUE(d.feed(frame(1, "hello ") + frame(2, "oops") + frame(1, "world")));
  auto a = d.next();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->stream, output_stream::stdout_stream);
  EXPECT_EQ(a->data, "hello ");
  auto b = d.next();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->stream, output_stream::stderr_stream);
  EXPECT_EQ(b->data, "oops");
  EXPECT_EQ(d.next()->data, "world");
  EXPECT_FALSE(d.next());
  EXPECT_TRUE(d.at_frame_boundary());
}

TEST(FrameDemuxer, ByteByByteInputGivesTheSameText) {
  std::string wire = frame(1, "abc") + frame(2, "err") + frame(1, "") + frame(1, "def");
  frame_demuxer d;
  std::string out, err;
  for (char ch : wire) {
    d.feed(std::string_view(&ch, 1));
    while (auto c = d.next()) (c->stream == output_stream::stdout_stream ? out : err) += c->data;
  }
  EXPECT_EQ(out, "abcdef");
  EXPECT_EQ(err, "err");
  EXPECT_TRUE(d.at_frame_boundary());
}

TEST(FrameDemuxer, ALargeFrameComesOutInBoundedChunks) {
  frame_demuxer d(1000);
  d.feed(frame(1, std::string(4500, 'x')));
  std::size_t chunks = 0, total = 0;
  while (auto c = d.next()) {
    EXPECT_LE(c->data.size(), 1000u);
    ++chunks;
    total += c->data.size();
  }
  EXPECT_EQ(total, 4500u);
  EXPECT_EQ(chunks, 5u);
}

TEST(FrameDemuxer, APartialFrameIsNotABoundary) {
  frame_demuxer d;
  std::string f = frame(1, "abcdef");
  d.feed(f.substr(0, 10));
  EXPECT_EQ(drain(d, output_stream::stdout_stream), "ab");
  EXPECT_FALSE(d.at_frame_boundary());
}

TEST(FrameDemuxer, RejectsAStreamThatIsNotFramed) {
  frame_demuxer d;
  d.feed("hello world, this is raw tty output");
  EXPECT_FALSE(d.next());
  EXPECT_TRUE(d.failed());
  EXPECT_FALSE(d.feed("more"));
}

}  // namespace
}  // namespace harness::docker
