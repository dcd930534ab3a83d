// handoff-load: what one call from a process to another costs on this host, beyond the work the
// call does (bench/run's "Worker processes vs threads" puts it next to the cost of
// --isolation process: a call to a worker process is one such round trip more than a call on
// the server's own thread).
//
//   handoff-load [-n CALLS] [--work-us US] [--gap-us US] [--via socket|socket1|futex]
//
// A parent and a forked child. Each call: the parent sends a request and waits; the child,
// waiting for it, wakes, works for --work-us (busy), and answers; the parent wakes. The parent
// then sleeps --gap-us before the next call, so both CPUs may go idle as they do between HTTP
// requests: waking a task on an idle CPU is the expensive case on a virtual machine (the
// hypervisor has to run the halted virtual CPU again). --via socket carries the call over two
// AF_UNIX stream socketpairs, one for the requests and one for the answers, as the worker lanes
// do (src/workers/lane_sockets.h); --via socket1 over one socketpair both ways, as the lanes did
// before, where the parent's read of each answer also wakes the child asleep in its next read
// (docs/security.md#worker-processes); --via futex signals it through a futex word in shared
// memory, with no socket.
//
// Prints one line: `p50=<us> p90=<us> n=<calls>`, the round trip minus the child's own time from
// its wake to its answer, i.e. the two wakes and the syscalls around them. The first
// kWarmupCalls calls are not counted.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

constexpr int kWarmupCalls = 100;
constexpr std::size_t kMessageBytes = 16;  // a lane frame's header

using Clock = std::chrono::steady_clock;

// The page the two processes share: the futex words and the child's time per call.
struct Shared {
  std::uint32_t request = 0;  // the number of the call the parent has sent
  std::uint32_t answer = 0;   // the number of the call the child has answered
  std::int64_t child_ns = 0;  // the child's time in the last call, wake to answer
};

void futex_wake(std::uint32_t* word) {
  syscall(SYS_futex, word, FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

// Waits until *word is `want` (a shared futex: the two are processes).
void futex_wait_for(std::uint32_t* word, std::uint32_t want) {
  for (;;) {
    const std::uint32_t now = std::atomic_ref<std::uint32_t>(*word).load();
    if (now == want) return;
    syscall(SYS_futex, word, FUTEX_WAIT, now, nullptr, nullptr, 0);
  }
}

void busy_for(std::chrono::microseconds work) {
  const auto until = Clock::now() + work;
  while (Clock::now() < until) {
  }
}

void send_all(int fd, const char* bytes) {
  if (send(fd, bytes, kMessageBytes, MSG_NOSIGNAL) != static_cast<ssize_t>(kMessageBytes)) {
    std::perror("handoff-load: send");
    std::exit(2);
  }
}

void receive_all(int fd, char* bytes) {
  std::size_t done = 0;
  while (done < kMessageBytes) {
    const ssize_t n = recv(fd, bytes + done, kMessageBytes - done, 0);
    if (n <= 0) std::exit(0);  // the other side is gone: the run is over
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void child(Shared* shared, int in, int out, bool futex, int calls,
                        std::chrono::microseconds work) {
  char message[kMessageBytes] = {};
  for (int i = 1; i <= calls; ++i) {
    if (futex) {
      futex_wait_for(&shared->request, static_cast<std::uint32_t>(i));
    } else {
      receive_all(in, message);
    }
    const auto woke = Clock::now();
    busy_for(work);
    std::atomic_ref<std::int64_t>(shared->child_ns)
        .store(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - woke).count());
    if (futex) {
      std::atomic_ref<std::uint32_t>(shared->answer).store(static_cast<std::uint32_t>(i));
      futex_wake(&shared->answer);
    } else {
      send_all(out, message);
    }
  }
  _exit(0);
}

int usage() {
  std::fprintf(stderr,
               "usage: handoff-load [-n CALLS] [--work-us US] [--gap-us US] "
               "[--via socket|socket1|futex]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 2000;
  long work_us = 100;
  long gap_us = 200;
  std::string via = "socket";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    if (arg == "-n") {
      calls = std::atoi(argv[++i]);
    } else if (arg == "--work-us") {
      work_us = std::atol(argv[++i]);
    } else if (arg == "--gap-us") {
      gap_us = std::atol(argv[++i]);
    } else if (arg == "--via") {
      via = argv[++i];
    } else {
      return usage();
    }
  }
  if (calls < 1 || work_us < 0 || gap_us < 0 ||
      (via != "socket" && via != "socket1" && via != "futex")) {
    return usage();
  }
  const bool futex = via == "futex";
  const int total = calls + kWarmupCalls;

  void* page =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    std::perror("handoff-load: mmap");
    return 2;
  }
  auto* shared = new (page) Shared();
  // calls[0] -> calls[1] carries requests; answers[1] -> answers[0] carries answers. With one
  // pair (--via socket1), the same socket carries both.
  int calls_pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, calls_pair) != 0) {
    std::perror("handoff-load: socketpair");
    return 2;
  }
  int answers_pair[2] = {calls_pair[0], calls_pair[1]};
  if (via == "socket" && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, answers_pair) != 0) {
    std::perror("handoff-load: socketpair");
    return 2;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("handoff-load: fork");
    return 2;
  }
  if (pid == 0) {
    close(calls_pair[0]);
    if (answers_pair[0] != calls_pair[0]) close(answers_pair[0]);
    child(shared, calls_pair[1], answers_pair[1], futex, total, std::chrono::microseconds(work_us));
  }
  close(calls_pair[1]);
  if (answers_pair[1] != calls_pair[1]) close(answers_pair[1]);

  std::vector<double> overhead_us;
  overhead_us.reserve(static_cast<std::size_t>(calls));
  char message[kMessageBytes] = {};
  for (int i = 1; i <= total; ++i) {
    if (gap_us > 0) usleep(static_cast<useconds_t>(gap_us));
    const auto sent = Clock::now();
    if (futex) {
      std::atomic_ref<std::uint32_t>(shared->request).store(static_cast<std::uint32_t>(i));
      futex_wake(&shared->request);
      futex_wait_for(&shared->answer, static_cast<std::uint32_t>(i));
    } else {
      send_all(calls_pair[0], message);
      receive_all(answers_pair[0], message);
    }
    const auto round_trip = Clock::now() - sent;
    const std::int64_t child_ns = std::atomic_ref<std::int64_t>(shared->child_ns).load();
    if (i > kWarmupCalls) {
      overhead_us.push_back(
          static_cast<double>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(round_trip).count() - child_ns) /
          1000.0);
    }
  }
  close(calls_pair[0]);
  if (answers_pair[0] != calls_pair[0]) close(answers_pair[0]);
  waitpid(pid, nullptr, 0);
  std::sort(overhead_us.begin(), overhead_us.end());
  const auto pct = [&](double p) {
    return overhead_us[std::min(overhead_us.size() - 1,
                                static_cast<std::size_t>(p * static_cast<double>(calls)))];
  };
  std::printf("p50=%.1f p90=%.1f n=%d\n", pct(0.5), pct(0.9), calls);
  return 0;
}
