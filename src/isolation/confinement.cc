#include "isolation/confinement.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <system_error>

#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>  // _IOWR, which the UFFDIO_* requests expand to
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sandbox::isolation {
namespace {

[[noreturn]] void fail(int error, const char* what) {
  throw std::system_error(error, std::generic_category(), what);
}

// --- 1. Descriptors ---------------------------------------------------------------------------

// Open descriptors are found with poll(), which marks a closed one POLLNVAL, rather than by
// listing /proc/self/fd: a worker forked from a confined zygote may open no path at all (the
// zygote's filter would kill it), and poll opens nothing. Descriptors per poll() call (a call
// may not pass more than the soft RLIMIT_NOFILE, and the probe never goes past that limit).
constexpr std::size_t kPollChunk = 1024;
// The most descriptors probed, whatever the soft RLIMIT_NOFILE says: the kernel's default
// fs.nr_open, past which no descriptor can exist unless an administrator raised it.
constexpr std::size_t kMaxProbedDescriptors = std::size_t{1} << 20;

// The open descriptors below the soft RLIMIT_NOFILE, in increasing order.
std::vector<int> open_descriptors() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) fail(errno, "getrlimit(RLIMIT_NOFILE)");
  const std::size_t probed =
      limit.rlim_cur == RLIM_INFINITY
          ? kMaxProbedDescriptors
          : std::min<std::size_t>(static_cast<std::size_t>(limit.rlim_cur), kMaxProbedDescriptors);
  std::vector<int> open;
  std::vector<pollfd> chunk;
  for (std::size_t first = 0; first < probed; first += kPollChunk) {
    const std::size_t count = std::min(kPollChunk, probed - first);
    chunk.assign(count, pollfd{});
    for (std::size_t i = 0; i < count; ++i) chunk[i].fd = static_cast<int>(first + i);
    while (poll(chunk.data(), count, 0) < 0) {
      if (errno != EINTR) fail(errno, "poll (finding open descriptors)");
    }
    for (const pollfd& entry : chunk) {
      if ((entry.revents & POLLNVAL) == 0) open.push_back(entry.fd);
    }
  }
  return open;
}

bool is_write_sealed_memfd(int fd) {
  // F_GET_SEALS fails with EINVAL on anything but a memfd (or another shmem file).
  const int seals = fcntl(fd, F_GET_SEALS);
  return seals >= 0 && (seals & F_SEAL_WRITE) != 0;
}

// Closes every descriptor but `keep` (sorted, unique), with one close_range per gap; on a kernel
// without close_range (before 5.9), each descriptor of `open` that is not kept, one by one.
void close_all_but(const std::vector<int>& keep, const std::vector<int>& open) {
  unsigned first = 0;
  bool have_close_range = true;
  for (const int kept : keep) {
    const auto fd = static_cast<unsigned>(kept);
    if (fd > first && close_range(first, fd - 1, 0) != 0) {
      if (errno != ENOSYS) fail(errno, "close_range");
      have_close_range = false;
      break;
    }
    first = fd + 1;
  }
  if (have_close_range && close_range(first, ~0U, 0) != 0) {
    if (errno != ENOSYS) fail(errno, "close_range");
    have_close_range = false;
  }
  if (have_close_range) return;
  for (const int fd : open) {
    // Not retried on EINTR: Linux releases the descriptor even then.
    if (!std::binary_search(keep.begin(), keep.end(), fd)) close(fd);
  }
}

std::size_t close_descriptors(const ConfinementOptions& options) {
  const std::vector<int> open = open_descriptors();
  std::vector<int> keep;
  for (const int fd : options.keep_fds) {
    if (fd < 0 || fcntl(fd, F_GETFD) < 0) {
      fail(EBADF, "keep_fds names a descriptor that is not open");
    }
    keep.push_back(fd);
  }
  if (options.keep_sealed_memfds) {
    for (const int fd : open) {
      if (is_write_sealed_memfd(fd)) keep.push_back(fd);
    }
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  const auto kept_and_open = std::count_if(open.begin(), open.end(), [&](int fd) {
    return std::binary_search(keep.begin(), keep.end(), fd);
  });
  close_all_but(keep, open);
  return open.size() - static_cast<std::size_t>(kept_and_open);
}

// --- 2. Resource limits -----------------------------------------------------------------------

void limit_resources() {
  // A crash must not write the guest's memory (or the engine's) to disk. Hard limit 0 too, so the
  // process cannot raise it again.
  // Already so (systemd's LimitCORE=0, whose unit may also refuse setrlimit): nothing to do.
  rlimit now{};
  if (getrlimit(RLIMIT_CORE, &now) == 0 && now.rlim_cur == 0 && now.rlim_max == 0) return;
  const rlimit no_core{.rlim_cur = 0, .rlim_max = 0};
  if (setrlimit(RLIMIT_CORE, &no_core) != 0) fail(errno, "setrlimit(RLIMIT_CORE)");
}

// --- 3. Network namespace ---------------------------------------------------------------------

bool enter_network_namespace() {
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) return true;
  // No user namespaces (a container, a sysctl) but privileged: a network namespace alone.
  return unshare(CLONE_NEWNET) == 0;
}

// --- 5. Landlock ------------------------------------------------------------------------------

// The file-system access rights of each Landlock ABI version. The values are the kernel's UAPI;
// they are spelled out where the installed <linux/landlock.h> predates them (Debian 12's stops
// at ABI 2), since the running kernel may be newer than the headers.
constexpr std::uint64_t kAccessFsAbi1 =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
    LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
    LANDLOCK_ACCESS_FS_MAKE_SYM;
constexpr std::uint64_t kAccessFsRefer = std::uint64_t{1} << 13;     // ABI 2
constexpr std::uint64_t kAccessFsTruncate = std::uint64_t{1} << 14;  // ABI 3
constexpr std::uint64_t kAccessFsIoctlDev = std::uint64_t{1} << 15;  // ABI 5
constexpr int kAbiRefer = 2;
constexpr int kAbiTruncate = 3;
constexpr int kAbiIoctlDev = 5;
#ifdef LANDLOCK_ACCESS_FS_REFER
static_assert(LANDLOCK_ACCESS_FS_REFER == kAccessFsRefer);
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
static_assert(LANDLOCK_ACCESS_FS_TRUNCATE == kAccessFsTruncate);
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
static_assert(LANDLOCK_ACCESS_FS_IOCTL_DEV == kAccessFsIoctlDev);
#endif

// Every file-system right the kernel of this ABI version knows. ABI 4 (TCP), 6 (scopes) and 7
// (logging) add no file-system right; a right of a later version is not handled until it is
// listed here.
std::uint64_t handled_access_fs(int abi) {
  std::uint64_t rights = kAccessFsAbi1;
  if (abi >= kAbiRefer) rights |= kAccessFsRefer;
  if (abi >= kAbiTruncate) rights |= kAccessFsTruncate;
  if (abi >= kAbiIoctlDev) rights |= kAccessFsIoctlDev;
  return rights;
}

// A descriptor closed when it goes out of scope.
class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// The kernel's Landlock ABI version, or 0 when it has none. Any refusal counts as none: ENOSYS
// (not built), EOPNOTSUPP (built but disabled at boot), or an outer seccomp filter (a
// container's) answering EPERM for a system call it does not know.
int landlock_abi() {
  const long version =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return version > 0 ? static_cast<int>(version) : 0;
}

// Restricts the process to a ruleset with no rule: every handled access is refused from now on,
// for paths opened later (descriptors already open keep what they were opened with).
void restrict_file_system(int abi) {
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = handled_access_fs(abi);
  const UniqueFd ruleset(
      static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0)));
  if (ruleset.get() < 0) fail(errno, "landlock_create_ruleset");
  if (syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) {
    fail(errno, "landlock_restrict_self");
  }
}

// --- 6. Seccomp -------------------------------------------------------------------------------

// I/O on descriptors the process already holds: its channel to the server (recvmsg/sendmsg carry
// descriptors, recv/send are recvfrom/sendto in glibc; poll/ppoll wait with a deadline) and its
// memfds (pread64, pwrite64 filling an engine image, lseek). None of them opens anything.
constexpr int kDescriptorIo[] = {
    SCMP_SYS(read),     SCMP_SYS(write),   SCMP_SYS(readv),   SCMP_SYS(writev),   SCMP_SYS(pread64),
    SCMP_SYS(pwrite64), SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(recvfrom), SCMP_SYS(sendto),
    SCMP_SYS(close),    SCMP_SYS(poll),    SCMP_SYS(ppoll),   SCMP_SYS(lseek)};
// Memory: malloc (brk, mmap, mremap for realloc, madvise to return pages), guard pages and Wasm
// memory growth (mprotect), resetting linear memory (madvise), residency checks (mincore).
constexpr int kMemory[] = {SCMP_SYS(mmap),    SCMP_SYS(munmap), SCMP_SYS(mprotect),
                           SCMP_SYS(madvise), SCMP_SYS(mremap), SCMP_SYS(brk),
                           SCMP_SYS(mincore)};
// Threads and their synchronisation: what glibc's pthread_create, mutexes and condition variables
// call (set_robust_list and rseq in every new thread), sched_yield for spin loops, and
// sched_getaffinity, which glibc's malloc calls to size its arenas when a thread first allocates.
constexpr int kThreads[] = {SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(rseq),
                            SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity)};
// Time (deadlines, durations, sleeps; clock_gettime is a system call when the vDSO cannot answer),
// the process's own usage (CPU time) and entropy (random_get, hash seeds).
constexpr int kTimeAndEntropy[] = {SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres),
                                   SCMP_SYS(gettimeofday),  SCMP_SYS(clock_nanosleep),
                                   SCMP_SYS(nanosleep),     SCMP_SYS(getrusage),
                                   SCMP_SYS(getrandom)};
// Identity, as glibc and loggers ask for it; none of these can change anything.
constexpr int kIdentity[] = {SCMP_SYS(getpid),  SCMP_SYS(gettid), SCMP_SYS(getuid),
                             SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid)};
// Signals within the process: handlers (the Wasm runtime's trap handlers run on an alternate
// stack), masks, returning from a handler, restarting an interrupted call, and the exits.
// tgkill (raise, abort, pthread_kill) and rt_tgsigqueueinfo (pthread_sigqueue) are added below,
// bound to the process's own pid.
constexpr int kSignalsAndExit[] = {SCMP_SYS(rt_sigaction),    SCMP_SYS(rt_sigprocmask),
                                   SCMP_SYS(rt_sigreturn),    SCMP_SYS(sigaltstack),
                                   SCMP_SYS(restart_syscall), SCMP_SYS(exit),
                                   SCMP_SYS(exit_group)};
// Memory images and write tracking: memfds (a snapshot's pages, a sealed engine image), their
// size, and fstat on a descriptor (plain fstat; glibc's is newfstatat, added below).
constexpr int kMemfds[] = {SCMP_SYS(memfd_create), SCMP_SYS(ftruncate), SCMP_SYS(fstat)};
// fcntl commands: descriptor and status flags (close-on-exec, non-blocking), and sealing memfds.
// Not F_DUPFD (a descriptor number the process chooses), F_SETOWN or locks.
constexpr int kFcntlCommands[] = {F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GET_SEALS, F_ADD_SEALS};
// The requests the Wasm runtime's write tracking makes (userfaultfd, and PAGEMAP_SCAN below); no
// other ioctl is allowed, so no device or socket can be driven through one.
constexpr unsigned long kUserfaultfdRequests[] = {
    UFFDIO_API,
    UFFDIO_REGISTER,
    UFFDIO_UNREGISTER,
    UFFDIO_WRITEPROTECT,
    UFFDIO_COPY,
    UFFDIO_ZEROPAGE,
#ifdef UFFDIO_WAKE
    UFFDIO_WAKE,
#endif
    // PAGEMAP_SCAN on the worker's own /proc/self/pagemap (opened before confinement): which
    // pages were written since write protection was armed. _IOWR('f', 16, struct pm_scan_arg),
    // a 96-byte struct (linux/fs.h from 6.7; older headers lack it).
    _IOWR('f', 16, char[96]),
};
// The clone flags that create namespaces. Not CLONE_NEWTIME: clone() cannot take it (its bit is
// part of the exit signal there).
constexpr scmp_datum_t kCloneNamespaceFlags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS |
                                              CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
                                              CLONE_NEWNET;
// Thread names, for logs and debuggers.
constexpr int kPrctlOptions[] = {PR_SET_NAME, PR_GET_NAME};

// The zygote's additions. It never runs guest code; it forks workers (clone without CLONE_THREAD,
// AF_UNIX socketpair for their channels), waits for and signals them, and each child it forks
// must still be able to confine itself further: close_range, rlimits (getrlimit is prlimit64 in
// glibc), unshare, no_new_privs, Landlock and a seccomp filter of its own.
constexpr int kZygoteExtras[] = {SCMP_SYS(wait4),
                                 SCMP_SYS(waitid),
                                 SCMP_SYS(kill),
                                 SCMP_SYS(close_range),
                                 SCMP_SYS(unshare),
                                 SCMP_SYS(seccomp),
                                 SCMP_SYS(setrlimit),
                                 SCMP_SYS(prlimit64),
                                 SCMP_SYS(landlock_create_ruleset),
                                 SCMP_SYS(landlock_restrict_self)};
constexpr int kZygotePrctlOptions[] = {PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP};

// Sanitizer builds (asan and tsan presets) only: what their runtimes call during normal
// operation of a confined process. UBSan's vptr check (part of the asan preset) probes whether
// memory is readable by writing it into a fresh pipe (IsAccessibleMemoryRange), on every dynamic
// type it has not seen yet.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANDBOX_SANITIZER_RUNTIME 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANDBOX_SANITIZER_RUNTIME 1
#endif
#endif
#ifdef SANDBOX_SANITIZER_RUNTIME
constexpr int kSanitizerRuntime[] = {SCMP_SYS(pipe2)};
#endif

struct ReleaseFilter {
  void operator()(void* filter) const { seccomp_release(filter); }
};
using Filter = std::unique_ptr<void, ReleaseFilter>;

// libseccomp answers -errno.
void check(int rc, const char* what) {
  if (rc < 0) fail(-rc, what);
}

void add_rule(const Filter& filter, std::uint32_t action, int syscall_nr,
              std::initializer_list<scmp_arg_cmp> conditions = {}) {
  check(seccomp_rule_add_array(filter.get(), action, syscall_nr,
                               static_cast<unsigned>(conditions.size()), conditions.begin()),
        "seccomp_rule_add");
}

void allow(const Filter& filter, int syscall_nr,
           std::initializer_list<scmp_arg_cmp> conditions = {}) {
  add_rule(filter, SCMP_ACT_ALLOW, syscall_nr, conditions);
}

template <std::size_t N>
void allow_all(const Filter& filter, const int (&syscalls)[N]) {
  for (const int nr : syscalls) allow(filter, nr);
}

Filter build_filter(SyscallPolicy policy) {
  const bool zygote = policy == SyscallPolicy::kZygote;
  // Anything not allowed kills the whole process, not just the thread: a half-dead worker
  // holding a lock would hang the server's request instead of failing it.
  Filter filter(seccomp_init(SCMP_ACT_KILL_PROCESS));
  if (!filter) fail(ENOMEM, "seccomp_init");
  // A system call of another ABI (x32, or i386 through int 0x80) is killed the same way.
  check(seccomp_attr_set(filter.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
        "seccomp_attr_set(SCMP_FLTATR_ACT_BADARCH)");
  // Every thread gets the filter, should the caller have broken the single-thread requirement.
  check(seccomp_attr_set(filter.get(), SCMP_FLTATR_CTL_TSYNC, 1),
        "seccomp_attr_set(SCMP_FLTATR_CTL_TSYNC)");

  allow_all(filter, kDescriptorIo);
  allow_all(filter, kMemory);
  allow_all(filter, kThreads);
  allow_all(filter, kTimeAndEntropy);
  allow_all(filter, kIdentity);
  allow_all(filter, kSignalsAndExit);
  allow_all(filter, kMemfds);
#ifdef SANDBOX_SANITIZER_RUNTIME
  allow_all(filter, kSanitizerRuntime);
#endif
  // get_robust_list only for the calling thread (pid 0): with another pid it reads that
  // process's robust-list address, an address-layout leak across workers.
  allow(filter, SCMP_SYS(get_robust_list), {SCMP_A0(SCMP_CMP_EQ, 0)});
  // sched_setaffinity only for the calling thread (pid 0), within the CPUs the process may use
  // (the kernel refuses others): a restore's thread moves off its server's CPU for the
  // restore's length (docs/security.md#restore-overlap). It can only choose where its own
  // thread runs, as sched_yield and a busy loop already let it weigh on a CPU.
  allow(filter, SCMP_SYS(sched_setaffinity), {SCMP_A0(SCMP_CMP_EQ, 0)});
  // glibc's fstat: newfstatat(fd, "", buf, AT_EMPTY_PATH). The path cannot be checked here (see
  // the header's "Known residue"); Landlock has no right for stat either.
  allow(filter, SCMP_SYS(newfstatat), {SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH)});
  for (const int command : kFcntlCommands) {
    allow(filter, SCMP_SYS(fcntl), {SCMP_A1(SCMP_CMP_EQ, static_cast<scmp_datum_t>(command))});
  }
  // userfaultfd only in user mode (UFFD_USER_MODE_ONLY, as the Wasm runtime opens it): a handler
  // of faults taken inside the kernel could stall a kernel copy at will, a classic step of kernel
  // exploits.
  allow(filter, SCMP_SYS(userfaultfd),
        {SCMP_A0(SCMP_CMP_MASKED_EQ, UFFD_USER_MODE_ONLY, UFFD_USER_MODE_ONLY)});
  for (const unsigned long request : kUserfaultfdRequests) {
    allow(filter, SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_EQ, request)});
  }
  for (const int option : kPrctlOptions) {
    allow(filter, SCMP_SYS(prctl), {SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(option))});
  }
  // glibc's pthread_create tries clone3 first and falls back to clone on ENOSYS. clone3 passes its
  // flags in memory, where a filter cannot check them, so only clone (flags in a register) is
  // allowed.
  add_rule(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3));

  if (zygote) {
    allow_all(filter, kZygoteExtras);
    for (const int option : kZygotePrctlOptions) {
      allow(filter, SCMP_SYS(prctl), {SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(option))});
    }
    allow(filter, SCMP_SYS(socketpair), {SCMP_A0(SCMP_CMP_EQ, AF_UNIX)});
    // fork, and threads.
    allow(filter, SCMP_SYS(clone));
    // Its children have pids of their own (raise() before they confine themselves), and kill is
    // allowed anyway.
    allow(filter, SCMP_SYS(tgkill));
  } else {
    // Threads only: a clone without CLONE_THREAD is a new process (fork, vfork, posix_spawn).
    // Nor may a thread get namespaces of its own (the process holds every capability of its user
    // namespace, so the kernel would allow some).
    allow(filter, SCMP_SYS(clone),
          {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD | kCloneNamespaceFlags, CLONE_THREAD)});
    // Signals to its own threads only (raise, abort, pthread_kill, and pthread_sigqueue: the
    // Wasm runtime's watchdog interrupts a guest call past its deadline with it), never to
    // another process.
    allow(filter, SCMP_SYS(tgkill), {SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(getpid()))});
    allow(filter, SCMP_SYS(rt_tgsigqueueinfo),
          {SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(getpid()))});
  }
  return filter;
}

}  // namespace

ConfinementReport confine_current_process(const ConfinementOptions& options) {
  ConfinementReport report;
  report.closed_fds = close_descriptors(options);
  limit_resources();
  if (options.network_namespace) report.network_namespace = enter_network_namespace();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(errno, "prctl(PR_SET_NO_NEW_PRIVS)");
  report.no_new_privs = true;
  if (options.landlock) {
    report.landlock_abi = landlock_abi();
    if (report.landlock_abi > 0) {
      restrict_file_system(report.landlock_abi);
      report.landlock = true;
    }
  }
  if (options.seccomp) {
    const Filter filter = build_filter(options.policy);
    check(seccomp_load(filter.get()), "seccomp_load");
    report.seccomp = true;
  }
  return report;
}

std::string describe(const ConfinementReport& report) {
  std::vector<std::string> present;
  std::vector<std::string> missing;
  const auto add = [&](bool on, std::string name) {
    (on ? present : missing).push_back(std::move(name));
  };
  add(report.seccomp, "seccomp");
  add(report.no_new_privs, "no_new_privs");
  add(report.landlock,
      report.landlock ? "landlock (ABI " + std::to_string(report.landlock_abi) + ")" : "landlock");
  add(report.network_namespace, "network namespace");
  const auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
  };
  std::string text = present.empty() ? "nothing" : join(present);
  if (!missing.empty()) text += " (without " + join(missing) + ")";
  text += "; " + std::to_string(report.closed_fds) +
          (report.closed_fds == 1 ? " descriptor closed" : " descriptors closed");
  return text;
}

}  // namespace sandbox::isolation
