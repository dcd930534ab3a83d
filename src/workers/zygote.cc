#include "workers/zygote.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <system_error>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isolation/confinement.h"
#include "wasm/memory_image.h"
#include "wasm/uffd_tracking.h"
#include "workers/worker_main.h"
#include "workers/worker_protocol.h"

namespace sandbox::workers {
namespace {

// Sanitizer builds keep the server's stderr in the workers, so a report reaches the test log.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kKeepStderr = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kKeepStderr = true;
#else
constexpr bool kKeepStderr = false;
#endif
#else
constexpr bool kKeepStderr = false;
#endif

// The most a zygote request may carry (a kSpawn has no payload).
constexpr std::size_t kMaxZygoteRequestBytes = 64;

[[noreturn]] void die(const char* what) {
  // Nothing to report to: the server sees the channel close.
  (void)what;
  _exit(127);
}

// Points 0, 1 and 2 at /dev/null (2 stays the server's stderr in sanitizer builds), so they
// are kept open and nothing the process creates later takes their numbers.
void quiet_standard_descriptors() {
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) die("open /dev/null");
  for (int fd = 0; fd <= 2; ++fd) {
    if (fd == 2 && kKeepStderr) continue;
    if (::dup2(null, fd) < 0) die("dup2");
  }
  if (null > 2) ::close(null);
}

// The zygote keeps only its channel and enters its own user and network namespaces (which its
// workers then share as well as entering their own), but loads neither Landlock nor seccomp:
// each worker must still open its own /proc/self/pagemap before it confines itself, and both
// would be inherited. The zygote runs no guest code, and no worker holds a channel to it.
void confine_zygote(int channel_fd, bool enabled) {
  isolation::ConfinementOptions options;
  options.policy = isolation::SyscallPolicy::kZygote;
  options.keep_fds = {0, 1, 2, channel_fd};
  options.landlock = false;
  options.seccomp = false;
  options.network_namespace = enabled;
  isolation::confine_current_process(options);
}

[[noreturn]] void worker_child(UniqueFd channel, const std::vector<Engine>& engines,
                               bool enabled) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGCHLD, SIG_DFL);
  std::vector<int> keep{channel.get()};
  // The wasm runtime's own descriptors on this process (pagemap, userfaultfd): opened now,
  // while opening files is still allowed.
  if (const int pagemap = sandbox_wasm_image_open_in_child(); pagemap >= 0) keep.push_back(pagemap);
  int uffd[2];
  const int n = sandbox_uffd_open_in_child(uffd);
  for (int i = 0; i < n; ++i) keep.push_back(uffd[i]);
  std::string report = "not confined (--isolation process without confinement)";
  try {
    if (enabled) {
      isolation::ConfinementOptions options;
      options.policy = isolation::SyscallPolicy::kWorker;
      options.keep_fds = keep;
      options.keep_fds.insert(options.keep_fds.end(), {0, 1, 2});
      report = isolation::describe(isolation::confine_current_process(options));
    }
  } catch (const std::exception&) {
    die("confine");
  }
  run_worker(std::move(channel), engines, report);
}

volatile sig_atomic_t g_child_ended = 0;
void on_sigchld(int) { g_child_ended = 1; }

// Reports every worker that ended since the last call.
void reap(Channel& channel) {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    Writer w;
    w.u32(static_cast<std::uint32_t>(pid));
    w.u32(static_cast<std::uint32_t>(status));
    channel.send(static_cast<std::uint32_t>(Kind::kExited), 0, w.buffer());
  }
}

[[noreturn]] void zygote_main(UniqueFd fd, const std::vector<Engine>& engines, bool enabled) {
  quiet_standard_descriptors();
  const int channel_fd = fd.get();
  try {
    confine_zygote(channel_fd, enabled);
  } catch (const std::exception&) {
    die("confine zygote");
  }
  Channel channel(std::move(fd), kMaxZygoteRequestBytes);
  // SIGCHLD is delivered only inside ppoll, so the loop never misses a worker's end.
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGCHLD);
  sigprocmask(SIG_BLOCK, &blocked, nullptr);
  struct sigaction sa{};
  sa.sa_handler = on_sigchld;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, nullptr);
  sigset_t during_wait;
  sigemptyset(&during_wait);
  try {
    for (;;) {
      pollfd p{channel_fd, POLLIN, 0};
      const int ready = ::ppoll(&p, 1, nullptr, &during_wait);
      if (g_child_ended) {
        g_child_ended = 0;
        reap(channel);
      }
      if (ready <= 0) continue;
      std::optional<Frame> frame = channel.receive();
      if (!frame) _exit(0);  // the server is gone
      if (static_cast<Kind>(frame->kind) != Kind::kSpawn) continue;
      int pair[2];
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        channel.send(static_cast<std::uint32_t>(Kind::kReply), frame->call, {});
        continue;
      }
      UniqueFd server_end(pair[0]);
      UniqueFd worker_end(pair[1]);
      const pid_t pid = ::fork();
      if (pid == 0) {
        server_end = UniqueFd();
        worker_child(std::move(worker_end), engines, enabled);
      }
      worker_end = UniqueFd();
      Writer w;
      if (pid > 0) w.u32(static_cast<std::uint32_t>(pid));
      channel.send(static_cast<std::uint32_t>(Kind::kReply), frame->call, w.buffer(),
                   pid > 0 ? server_end.get() : -1);
      reap(channel);
    }
  } catch (const std::exception&) {
    _exit(0);  // the channel broke: the server is gone
  }
}

}  // namespace

ZygoteProcess start_zygote(const std::vector<Engine>& engines, bool confine) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::system_error(errno, std::generic_category(), "socketpair for the zygote");
  }
  UniqueFd server_end(pair[0]);
  UniqueFd zygote_end(pair[1]);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork the zygote");
  if (pid == 0) {
    server_end = UniqueFd();
    zygote_main(std::move(zygote_end), engines, confine);
  }
  return ZygoteProcess{std::move(server_end), pid};
}

}  // namespace sandbox::workers
