// A lane's two socket pairs (src/workers/lane_sockets.h): a worker's lane thread that has sent
// its answer and waits for the next call sleeps until that call arrives, even while the server
// reads the answer. On one socket pair for both directions the server's read woke it once for
// nothing. Counted with getrusage(RUSAGE_THREAD) (voluntary context switches): the count is the
// same on every host.
#include "workers/lane_sockets.h"

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "support/proc_memory.h"
#include "workers/channel.h"

namespace sandbox::workers {
namespace {

using sandbox::testing_support::thread_voluntary_switches;
using namespace std::chrono_literals;

constexpr std::size_t kLimit = 1024;

// The scheduler state of thread `tid` of this process ('S': asleep in a wait).
char thread_state(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto end_of_name = text.rfind(')');
  return end_of_name == std::string::npos || end_of_name + 2 >= text.size() ? '?'
                                                                            : text[end_of_name + 2];
}

// The voluntary context switches of thread `tid` of this process so far.
long voluntary_switches_of(pid_t tid) {
  std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
  const std::string key = "voluntary_ctxt_switches:";
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(key.size()));
  }
  return -1;
}

// The worker's side answers a call and waits for the next one at once; the server reads the
// answer while it sleeps, then sends the next call. Returns the voluntary context switches of
// the worker's wait (1: it slept until the call came). Before the call is sent, the waiter is
// given up to `settle` to wake and sleep again, had the read woken it.
long switches_while_the_server_reads(Channel& worker, Channel& server,
                                     std::chrono::milliseconds settle) {
  std::atomic<pid_t> waiter_tid{0};
  long switches = -1;
  std::optional<Frame> next;
  std::thread waiter([&] {
    worker.send(1, 7, "the answer");
    const long before = thread_voluntary_switches();
    waiter_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    next = worker.receive();
    switches = thread_voluntary_switches() - before;
  });
  while (waiter_tid.load() == 0) std::this_thread::yield();
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (thread_state(waiter_tid) != 'S' && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(thread_state(waiter_tid), 'S') << "the waiter never went to sleep";
  const long asleep = voluntary_switches_of(waiter_tid);
  // As the server reads an answer: waiting with a deadline (poll, then the read).
  const std::optional<Frame> answer = server.receive_until(std::chrono::steady_clock::now() + 10s);
  EXPECT_TRUE(answer && answer->payload == "the answer");
  // Time for a wake-up, had there been one, to end and the waiter to sleep again.
  const auto settled = std::chrono::steady_clock::now() + settle;
  while (!(voluntary_switches_of(waiter_tid) > asleep && thread_state(waiter_tid) == 'S') &&
         std::chrono::steady_clock::now() < settled) {
    std::this_thread::sleep_for(1ms);
  }
  server.send(1, 8, "the next call");
  waiter.join();
  EXPECT_TRUE(next && next->call == 8 && next->payload == "the next call");
  return switches;
}

TEST(LaneSockets, AWorkerWaitingForItsNextCallSleepsWhileTheServerReadsItsAnswer) {
  std::optional<LaneSockets> lane = make_lane_sockets();
  ASSERT_TRUE(lane);
  Channel server(std::move(lane->answers), std::move(lane->calls), kLimit);
  Channel worker(std::move(lane->worker_calls), std::move(lane->worker_answers), kLimit);
  EXPECT_LE(switches_while_the_server_reads(worker, server, 100ms), 1);
}

// Why a lane has two pairs: on one, the server's read of the answer wakes the waiting worker.
TEST(LaneSockets, OnOneSocketPairTheServersReadWakesTheWaitingWorker) {
  int ends[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  Channel server{UniqueFd(ends[0]), kLimit};
  Channel worker{UniqueFd(ends[1]), kLimit};
  EXPECT_GE(switches_while_the_server_reads(worker, server, 10s), 2);
}

TEST(LaneSockets, TheWorkerTakesItsTwoEndsAndTheAreaFromALaneFrame) {
  std::optional<LaneSockets> lane = make_lane_sockets();
  ASSERT_TRUE(lane);
  Frame frame;
  frame.fds.push_back(std::move(lane->worker_calls));
  frame.fds.push_back(std::move(lane->worker_answers));
  std::optional<LaneGrant> grant = take_lane(frame);
  ASSERT_TRUE(grant);
  EXPECT_LT(grant->area.get(), 0);  // no area: the answers carry their blocks
  // Calls arrive on the first end, answers leave on the second.
  Channel server(std::move(lane->answers), std::move(lane->calls), kLimit);
  Channel worker(std::move(grant->calls), std::move(grant->answers), kLimit);
  server.send(1, 3, "call");
  const std::optional<Frame> call = worker.receive();
  ASSERT_TRUE(call && call->payload == "call");
  worker.send(1, 3, "answer");
  const std::optional<Frame> answer = server.receive_until(std::chrono::steady_clock::now() + 10s);
  ASSERT_TRUE(answer && answer->payload == "answer");
}

// What a server's thread waits for awake after an announcement
// (docs/security.md#answers-announced): a frame waiting in the socket, or already read ahead with
// the one before it, or the end; with none of them it gives up at its limit.
TEST(LaneSockets, SpinningUntilReadableSeesAWaitingFrameAReadAheadOneOrTheEnd) {
  std::optional<LaneSockets> lane = make_lane_sockets();
  ASSERT_TRUE(lane);
  Channel server(std::move(lane->answers), std::move(lane->calls), kLimit);
  Channel worker(std::move(lane->worker_calls), std::move(lane->worker_answers), kLimit);
  const auto deadline = [] { return std::chrono::steady_clock::now() + 10s; };
  // Nothing sent: false, once the limit has passed.
  const auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(server.spin_until_readable(2ms));
  EXPECT_GE(std::chrono::steady_clock::now() - before, 2ms);
  // A frame waiting in the socket.
  worker.send(1, 1, "first");
  EXPECT_TRUE(server.spin_until_readable(10s));
  // Two small frames in one read: the second is read ahead, and nothing is left in the socket.
  worker.send_parts(1, 2, {"second"});
  worker.send_parts(1, 3, {"third"});
  std::this_thread::sleep_for(10ms);  // both arrived before the read below
  std::optional<Frame> f = server.receive_until(deadline());
  ASSERT_TRUE(f && f->payload == "first");
  f = server.receive_until(deadline());
  ASSERT_TRUE(f && f->payload == "second");
  EXPECT_TRUE(server.spin_until_readable(0ms));
  f = server.receive_until(deadline());
  ASSERT_TRUE(f && f->payload == "third");
  // A frame that comes while it waits.
  std::thread late([&] {
    std::this_thread::sleep_for(20ms);
    worker.send(1, 4, "late");
  });
  EXPECT_TRUE(server.spin_until_readable(10s));
  late.join();
  f = server.receive_until(deadline());
  ASSERT_TRUE(f && f->payload == "late");
  // The end.
  worker.shutdown();
  EXPECT_TRUE(server.spin_until_readable(10s));
  EXPECT_FALSE(server.receive_until(deadline()));
}

TEST(LaneSockets, ALaneFrameWithAnotherNumberOfDescriptorsIsRefused) {
  for (const int count : {0, 1, 4}) {
    Frame frame;
    for (int i = 0; i < count; ++i) frame.fds.emplace_back(::dup(STDERR_FILENO));
    EXPECT_FALSE(take_lane(frame)) << count << " descriptors";
  }
}

// A lane's two ends as the server and the worker hold them.
struct LanePair {
  LanePair() {
    std::optional<LaneSockets> lane = make_lane_sockets();
    EXPECT_TRUE(lane);
    server = std::make_unique<Channel>(std::move(lane->answers), std::move(lane->calls), kBig);
    worker = std::make_unique<Channel>(std::move(lane->worker_calls),
                                       std::move(lane->worker_answers), kBig);
  }
  static constexpr std::size_t kBig = std::size_t{1} << 20;
  std::unique_ptr<Channel> server;
  std::unique_ptr<Channel> worker;
};

std::string pattern(std::size_t n, char seed) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i % 251);
  return s;
}

// A lane reads ahead (workers/channel.h): frames sent one after another, of every size around
// the read-ahead, arrive whole and in order however the reads cut them.
TEST(LaneChannel, FramesOfEverySizeAroundTheReadAheadArriveWholeAndInOrder) {
  LanePair lane;
  const std::vector<std::size_t> sizes = {0,
                                          1,
                                          kReadAheadBytes - kFrameHeaderBytes - 1,
                                          kReadAheadBytes - kFrameHeaderBytes,
                                          kReadAheadBytes - kFrameHeaderBytes + 1,
                                          kReadAheadBytes,
                                          kReadAheadBytes + 1,
                                          3 * kReadAheadBytes + 7,
                                          100 * 1024,
                                          5,
                                          0};
  std::thread sender([&] {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      lane.worker->send(1, i, pattern(sizes[i], static_cast<char>('a' + i)));
    }
  });
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::optional<Frame> frame =
        lane.server->receive_until(std::chrono::steady_clock::now() + 10s);
    ASSERT_TRUE(frame) << i;
    EXPECT_EQ(frame->call, i);
    EXPECT_EQ(frame->payload, pattern(sizes[i], static_cast<char>('a' + i)))
        << sizes[i] << " bytes";
  }
  sender.join();
  // And the other way, read without a deadline as the worker reads its calls.
  std::thread caller([&] {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      lane.server->send(2, i, pattern(sizes[i], static_cast<char>('A' + i)));
    }
  });
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::optional<Frame> frame = lane.worker->receive();
    ASSERT_TRUE(frame) << i;
    EXPECT_EQ(frame->call, i);
    EXPECT_EQ(frame->payload, pattern(sizes[i], static_cast<char>('A' + i)))
        << sizes[i] << " bytes";
  }
  caller.join();
}

// A frame whose bytes come in pieces, with pauses longer than the receive timeout's slice, is
// waited for until its deadline, not until the first slice ends.
TEST(LaneChannel, AFrameArrivingInPiecesIsWaitedForAcrossSlices) {
  int answers[2];
  int calls[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, answers), 0);
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, calls), 0);
  Channel server(UniqueFd(answers[0]), UniqueFd(calls[0]), LanePair::kBig);
  const UniqueFd worker_answers(answers[1]);  // written by hand, a piece at a time
  const UniqueFd worker_calls(calls[1]);
  // A frame of 3 bytes for call 9: its header, then the payload.
  const std::string bytes = std::string("\x03\0\0\0\x01\0\0\0\x09\0\0\0\0\0\0\0", 16) + "abc";
  std::thread sender([&] {
    std::size_t at = 0;
    for (const std::size_t cut : {std::size_t{5}, std::size_t{17}, bytes.size()}) {
      std::this_thread::sleep_for(kReceiveSlice + 50ms);
      EXPECT_EQ(::send(worker_answers.get(), bytes.data() + at, cut - at, MSG_NOSIGNAL),
                static_cast<ssize_t>(cut - at));
      at = cut;
    }
  });
  const std::optional<Frame> frame = server.receive_until(std::chrono::steady_clock::now() + 10s);
  sender.join();
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->call, 9u);
  EXPECT_EQ(frame->payload, "abc");
}

// The deadline holds across slices, and a wait near one deadline leaves no short timeout behind
// for the next call's wait.
TEST(LaneChannel, ADeadlineEndsTheWaitAndTheNextWaitIsNotCutShort) {
  LanePair lane;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(lane.server->receive_until(start + 3 * kReceiveSlice + 20ms), ChannelTimeout);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 3 * kReceiveSlice + 20ms);
  EXPECT_LT(waited, 10s);
  // A wait with a close deadline (nothing read: the lane may be read again), then one whose
  // frame comes after several slices.
  LanePair next;
  EXPECT_THROW(next.server->receive_until(std::chrono::steady_clock::now() + 5ms), ChannelTimeout);
  std::thread sender([&] {
    std::this_thread::sleep_for(2 * kReceiveSlice + 50ms);
    next.worker->send(1, 4, "late");
  });
  const std::optional<Frame> frame =
      next.server->receive_until(std::chrono::steady_clock::now() + 10s);
  sender.join();
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->payload, "late");
}

}  // namespace
}  // namespace sandbox::workers
