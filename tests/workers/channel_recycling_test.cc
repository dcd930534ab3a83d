// A received frame's payload is shelved when the frame is done with (Frame::~Frame,
// src/base/recycled_buffer.h), so the next large frame is read into memory already mapped: a
// worker's reply of hundreds of KiB (a Ruby step's changed blocks) costs the server no page
// fault per 4 KiB. Counted with getrusage(RUSAGE_THREAD): the count is the same on every host.
#include <cstddef>
#include <latch>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <sys/socket.h>

#include "base/recycled_buffer.h"
#include "support/proc_memory.h"
#include "workers/channel.h"

namespace sandbox::workers {
namespace {

constexpr std::size_t kReplyBytes = std::size_t{512} << 10;  // 128 pages of 4 KiB

TEST(ChannelRecycling, AnotherThreadReadsTheNextLargeFrameIntoTheLastOnesMemory) {
  while (Shelf<std::string>::take()) {  // start with no shelved buffer
  }
  int ends[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  Channel sender(UniqueFd(ends[0]), kReplyBytes);
  Channel receiver(UniqueFd(ends[1]), kReplyBytes);
  std::thread peer([&] {  // the socket holds less than a frame: send from a thread of its own
    sender.send(1, 1, std::string(kReplyBytes, 'a'));
    sender.send(1, 2, std::string(kReplyBytes, 'b'));
  });
  // Two request threads, as the server's pool has: the first stays alive while the second
  // receives, so the second allocates from an arena of its own unless the shelf serves it.
  const char* first_memory = nullptr;
  const char* second_memory = nullptr;
  long second_faults = -1;
  std::latch first_done(1);
  std::latch second_done(1);
  std::thread first([&] {
    {
      const std::optional<Frame> frame = receiver.receive();
      EXPECT_TRUE(frame && frame->payload == std::string(kReplyBytes, 'a'));
      if (frame) first_memory = frame->payload.data();
    }  // the frame gives its payload back here
    first_done.count_down();
    second_done.wait();
  });
  std::thread second([&] {
    first_done.wait();
    const long before = testing_support::thread_minor_faults();
    const std::optional<Frame> frame = receiver.receive();
    second_faults = testing_support::thread_minor_faults() - before;
    EXPECT_TRUE(frame && frame->payload == std::string(kReplyBytes, 'b'));
    if (frame) second_memory = frame->payload.data();
    second_done.count_down();
  });
  second.join();
  first.join();
  peer.join();
  EXPECT_EQ(second_memory, first_memory);
  // Fresh memory would fault on each of the 128 pages; the shelved buffer on none (a few for the
  // stack's own pages).
  EXPECT_LE(second_faults, 8);
}

}  // namespace
}  // namespace sandbox::workers
