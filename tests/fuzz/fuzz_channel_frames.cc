// Fuzz target: the framing of the channels between the server and its worker processes
// (src/workers/channel.h), whose bytes a compromised worker writes
// (docs/security.md#worker-processes): a lane's channel, which reads ahead, and a channel over one
// socket pair, which reads each frame's header and payload exactly.
//
// Input: the first byte times 64 is the payload limit (so frames over it are easy to reach); the
// next byte (mod 16) plus one is the number of pieces the stream is written in, and as many
// bytes again say where each piece ends (each a share of what is left); the rest, up to
// kMaxStream bytes, is the stream. It is written, in those pieces, into a lane read with
// receive(), a lane read with receive_until() and a single socket pair read with receive(); each
// writer then closes its end.
//
// Checked beyond "no crash": the three read the same frames (kind, call and payload) and end
// the same way (the end of the stream, or a ChannelError, never another exception); no payload is
// over the limit; descriptors never arrive.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <sys/socket.h>

#include "fuzz_assert.h"
#include "fuzz_input.h"
#include "workers/channel.h"
#include "workers/lane_sockets.h"

namespace {

using sandbox::fuzz::FuzzInput;
using sandbox::workers::Channel;
using sandbox::workers::ChannelError;
using sandbox::workers::Frame;
using sandbox::workers::LaneSockets;
using sandbox::workers::UniqueFd;

// The stream is cut here: the pieces must fit the sockets' buffers, since nothing reads while
// they are written.
constexpr std::size_t kMaxStream = 64 * 1024;

// What a channel read: its frames, then how it ended.
struct Reading {
  std::vector<std::tuple<std::uint32_t, std::uint64_t, std::string>> frames;
  bool broke = false;  // a ChannelError; otherwise the end of the stream
  bool operator==(const Reading&) const = default;
};

void write_pieces(int fd, std::string_view stream, const std::vector<std::size_t>& ends) {
  std::size_t at = 0;
  for (const std::size_t end : ends) {
    while (at < end) {
      const ssize_t n = ::send(fd, stream.data() + at, end - at, MSG_NOSIGNAL);
      FUZZ_CHECK(n > 0);
      at += static_cast<std::size_t>(n);
    }
  }
  ::shutdown(fd, SHUT_WR);
}

Reading read_all(Channel& channel, std::size_t limit, bool with_deadline) {
  Reading reading;
  try {
    for (;;) {
      std::optional<Frame> frame =
          with_deadline
              ? channel.receive_until(std::chrono::steady_clock::now() + std::chrono::seconds(10))
              : channel.receive();
      if (!frame) break;
      FUZZ_CHECK(frame->payload.size() <= limit);
      FUZZ_CHECK(frame->fds.empty());
      reading.frames.emplace_back(frame->kind, frame->call, std::move(frame->payload));
    }
  } catch (const ChannelError&) {
    reading.broke = true;
  }
  return reading;
}

Reading through_lane(std::string_view stream, const std::vector<std::size_t>& ends,
                     std::size_t limit, bool with_deadline) {
  std::optional<LaneSockets> lane = sandbox::workers::make_lane_sockets();
  FUZZ_CHECK(lane.has_value());
  Channel server(std::move(lane->answers), std::move(lane->calls), limit);
  write_pieces(lane->worker_answers.get(), stream, ends);
  return read_all(server, limit, with_deadline);
}

Reading through_one_pair(std::string_view stream, const std::vector<std::size_t>& ends,
                         std::size_t limit) {
  int pair[2];
  FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
  Channel reader(UniqueFd(pair[0]), limit);
  const UniqueFd writer(pair[1]);
  write_pieces(writer.get(), stream, ends);
  return read_all(reader, limit, false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const std::size_t limit = std::size_t{in.u8()} * 64;
  const std::size_t pieces = in.u8() % 16 + 1;
  std::vector<std::uint8_t> shares;
  for (std::size_t i = 0; i + 1 < pieces; ++i) shares.push_back(in.u8());
  std::string_view stream = in.rest();
  stream = stream.substr(0, std::min(stream.size(), kMaxStream));
  // Where each piece ends: a share (of 256) of what is left after the one before.
  std::vector<std::size_t> ends;
  std::size_t at = 0;
  for (const std::uint8_t share : shares) {
    at += (stream.size() - at) * share / 256;
    ends.push_back(at);
  }
  ends.push_back(stream.size());

  const Reading exact = through_one_pair(stream, ends, limit);
  FUZZ_CHECK(through_lane(stream, ends, limit, false) == exact);
  FUZZ_CHECK(through_lane(stream, ends, limit, true) == exact);
  return 0;
}
