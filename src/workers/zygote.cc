#include "workers/zygote.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/sanitizers.h"
#include "isolation/confinement.h"
#include "wasm/memory_image.h"
#include "wasm/uffd_tracking.h"
#include "wasm/watchdog.h"
#include "workers/worker_main.h"
#include "workers/worker_protocol.h"

namespace sandbox::workers {
namespace {

// Sanitizer builds keep the server's stderr in the workers, so a report reaches the test log.
constexpr bool kKeepStderr = kUnderAddressSanitizer || kUnderThreadSanitizer;

// The most a zygote request may carry: a kSpawn has no payload, the kEngines list a name and a
// build id per engine.
constexpr std::size_t kMaxZygoteRequestBytes = std::size_t{64} * 1024;
// Where a zygote started as a program finds its channel.
constexpr int kZygoteChannelFd = 3;

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

// glibc reads a few files the first time it needs them. In a worker, whose filter kills the
// process on any open, that first time would cost the worker and every call in flight on it, so
// the zygote settles them at its start, before it makes an engine or a thread, and every worker
// inherits the outcome (docs/security.md#lazy-library-reads):
// - malloc keeps a single arena. A thread's arena of its own lives in heaps of its own, and the
//   first time such a heap shrinks glibc reads /proc/sys/vm/overcommit_memory; past eight arenas
//   it also counts the CPUs in /sys/devices/system/cpu/online. The main arena does neither.
//   (Each worker used to make one thread's heap shrink before loading its filter instead. An
//   engine's boot in the zygote frees large blocks, which raises malloc's trim threshold above
//   what that heap freed: in the workers forked after it nothing shrank, and the first lane
//   to free enough memory under load got its worker killed.)
// - the time zone (/etc/localtime) is read now.
// A zygote forked from a program that already ran other threads (against EngineWorkers::start's
// contract) inherits their arenas, and its workers may still use them.
void settle_lazy_library_state() {
  mallopt(M_ARENA_MAX, 1);
  tzset();
}

// Dies with its parent: a zygote whose server is gone, or a worker whose zygote is gone, must
// not live on (it may be stuck before it would notice its channel close).
void die_with_parent(pid_t parent) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) _exit(0);
}

[[noreturn]] void worker_child(UniqueFd channel, const std::vector<Engine>& engines, bool enabled,
                               pid_t zygote) {
  die_with_parent(zygote);
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

// kPrepare: makes the engine's image here, where every worker forked later finds it made. It
// boots the engine in a Wasm instance of its own, in a process that never runs a tenant's code.
// The boot arms the process's watchdog; it is ended again, so the zygote forks single-threaded.
bool prepare(const std::vector<Engine>& engines, const std::string& payload) {
  bool made = false;
  try {
    Reader r(payload);
    const std::uint32_t i = r.u32();
    r.finish();
    if (i < engines.size()) {
      const std::optional<Sessions>& sessions = engines[i].sessions;
      if (sessions.has_value() && sessions->base) made = sessions->base() != nullptr;
    }
  } catch (const std::exception&) {
    made = false;  // the workers make it themselves, as without this
  }
  wasm::end_process_watchdog();
  return made;
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

// The engines a zygote serves: the forking process's own, or, in a zygote started as a fresh
// program, those it makes by name from the first frame the server sends.
using EngineSource = std::function<const std::vector<Engine>&(Channel&)>;

[[noreturn]] void zygote_main(UniqueFd fd, const EngineSource& source, bool enabled, pid_t parent) {
  die_with_parent(parent);
  settle_lazy_library_state();
  quiet_standard_descriptors();
  const int channel_fd = fd.get();
  try {
    confine_zygote(channel_fd, enabled);
  } catch (const std::exception&) {
    die("confine zygote");
  }
  Channel channel(std::move(fd), kMaxZygoteRequestBytes);
  const std::vector<Engine>* engines_ptr = nullptr;
  try {
    engines_ptr = &source(channel);
  } catch (const std::exception&) {
    die("make engines");
  }
  const std::vector<Engine>& engines = *engines_ptr;
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
      if (static_cast<Kind>(frame->kind) == Kind::kPrepare) {
        Writer w;
        w.boolean(prepare(engines, frame->payload));
        channel.send(static_cast<std::uint32_t>(Kind::kReply), frame->call, w.buffer());
        continue;
      }
      if (static_cast<Kind>(frame->kind) != Kind::kSpawn) continue;
      int pair[2];
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        channel.send(static_cast<std::uint32_t>(Kind::kReply), frame->call, {});
        continue;
      }
      UniqueFd server_end(pair[0]);
      UniqueFd worker_end(pair[1]);
      const pid_t zygote = ::getpid();
      const pid_t pid = ::fork();
      if (pid == 0) {
        server_end = UniqueFd();
        worker_child(std::move(worker_end), engines, enabled, zygote);
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
  const pid_t server = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork the zygote");
  if (pid == 0) {
    server_end = UniqueFd();
    const std::vector<Engine>* served = &engines;
    zygote_main(
        std::move(zygote_end), [served](Channel&) -> const std::vector<Engine>& { return *served; },
        confine, server);
  }
  return ZygoteProcess{std::move(server_end), pid};
}

ZygoteProcess start_zygote_program(const std::vector<std::pair<std::string, std::string>>& engines,
                                   bool confine) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::system_error(errno, std::generic_category(), "socketpair for the zygote");
  }
  UniqueFd server_end(pair[0]);
  UniqueFd zygote_end(pair[1]);
  // Prepared before the fork: the child only calls async-signal-safe functions until execve.
  char arg0[] = "sandbox-zygote";
  char arg1[] = "--sandbox-zygote";
  char confined[] = "confine";
  char unconfined[] = "none";
  char* argv[] = {arg0, arg1, confine ? confined : unconfined, nullptr};
  // The environment holds only the write-tracking knobs that are set (nothing of the server's
  // own: its variables may name databases and keys).
  std::vector<std::string> kept;
  for (const char* name : kWorkerEnvironment) {
    if (const char* value = std::getenv(name)) kept.push_back(std::string(name) + "=" + value);
  }
  std::vector<char*> envp;
  envp.reserve(kept.size() + 1);
  for (std::string& entry : kept) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork the zygote");
  if (pid == 0) {
    // The channel becomes descriptor 3 (dup2 clears close-on-exec); nothing else is inherited
    // but what is not close-on-exec, which the zygote closes first thing.
    if (::dup2(zygote_end.get(), kZygoteChannelFd) < 0) _exit(127);
    ::execve("/proc/self/exe", argv, envp.data());
    _exit(127);
  }
  zygote_end = UniqueFd();
  Channel channel(UniqueFd(::dup(server_end.get())), 0);
  Writer w;
  w.u32(static_cast<std::uint32_t>(engines.size()));
  for (const auto& [name, build] : engines) {
    w.str(name);
    w.str(build);
  }
  try {
    channel.send(static_cast<std::uint32_t>(Kind::kEngines), 0, w.buffer());
  } catch (const ChannelError&) {
    // The zygote did not start; the first spawn reports it.
  }
  return ZygoteProcess{std::move(server_end), pid};
}

void serve_as_zygote(int argc, char** argv,
                     const std::function<Engine(const std::string&)>& make_engine) {
  if (argc < 2 || std::string_view(argv[1]) != "--sandbox-zygote") return;
  const bool confine = argc >= 3 && std::string_view(argv[2]) == "confine";
  const pid_t server = ::getppid();
  static std::vector<Engine> engines;
  zygote_main(
      UniqueFd(kZygoteChannelFd),
      [&make_engine](Channel& channel) -> const std::vector<Engine>& {
        std::optional<Frame> frame = channel.receive();
        if (!frame || static_cast<Kind>(frame->kind) != Kind::kEngines) _exit(0);
        Reader r(frame->payload);
        const std::uint32_t n = r.count(8);
        for (std::uint32_t i = 0; i < n; ++i) {
          const std::string name = r.str();
          const std::string build = r.str();
          engines.push_back(make_engine(name));
          // Another build of the program (it was replaced on disk since the server started)
          // would serve engines the server does not know.
          if (engines.back().build != build) die("engine build mismatch");
        }
        return engines;
      },
      confine, server);
}

}  // namespace sandbox::workers
