// A thread waiting for a frame on a Channel sleeps until one arrives: the peer reading what this
// end sent earlier does not wake it (src/workers/channel.h). A worker's lane thread answers a
// call and waits for the next one at once, so the server reading the answer woke it for nothing,
// and on a shared CPU that wake took the CPU from the server's thread. Counted with
// getrusage(RUSAGE_THREAD) (voluntary context switches): the count is the same on every host.
#include <atomic>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workers/channel.h"

namespace sandbox::workers {
namespace {

long thread_voluntary_switches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw;
}

// The scheduler state of thread `tid` of this process ('S': asleep in a wait).
char thread_state(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto end_of_name = text.rfind(')');
  return end_of_name == std::string::npos || end_of_name + 2 >= text.size() ? '?'
                                                                            : text[end_of_name + 2];
}

TEST(ChannelWakeups, AWaitingReceiverSleepsWhileThePeerReadsWhatItSent) {
  int ends[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  Channel worker(UniqueFd(ends[0]), 1024);
  Channel server(UniqueFd(ends[1]), 1024);
  std::atomic<pid_t> waiter_tid{0};
  long switches = -1;
  std::optional<Frame> next;
  std::thread waiter([&] {
    worker.send(1, 7, "the answer");  // an answer, then straight to waiting for the next call
    const long before = thread_voluntary_switches();
    waiter_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    next = worker.receive();
    switches = thread_voluntary_switches() - before;
  });
  while (waiter_tid.load() == 0) std::this_thread::yield();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (thread_state(waiter_tid) != 'S' && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(thread_state(waiter_tid), 'S') << "the waiter never went to sleep";
  // The server reads the answer while the waiter sleeps: the socket has room again.
  const std::optional<Frame> answer = server.receive();
  ASSERT_TRUE(answer && answer->payload == "the answer");
  // Time for a wake-up, had there been one, to end and the waiter to sleep again.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server.send(1, 8, "the next call");
  waiter.join();
  ASSERT_TRUE(next && next->call == 8 && next->payload == "the next call");
  // One sleep, ended by the call. Waiting in recvmsg() it was two: the read woke it once.
  EXPECT_LE(switches, 1);
}

}  // namespace
}  // namespace sandbox::workers
