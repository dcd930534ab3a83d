// Confinement of a worker (isolation/confinement.h). Every test forks a child that confines
// itself and reports through its exit status (or a pipe it keeps); the parent only waits. A
// child that the filter kills dies of SIGSYS.
#include "isolation/confinement.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/cpu_sets.h"

namespace sandbox::isolation {
namespace {

// Exit codes of a child: 0 is success; the others say which step went wrong.
constexpr int kConfinementFailed = 90;  // confine_current_process threw
constexpr int kNotKilled = 91;          // a forbidden call returned instead of killing
constexpr int kLayerUnavailable = 92;   // the layer under test is missing on this kernel
constexpr int kCheckFailed = 93;        // the first failed check of a body; +1 for each next one
// A child that hangs is ended by SIGALRM instead of hanging the test.
constexpr unsigned kChildDeadlineSeconds = 10;
// The file a forbidden open() tries; whether it exists does not matter to the filter.
constexpr const char* kHostFile = "/etc/hostname";

// A descriptor closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

struct Pipe {
  Fd read;
  Fd write;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) std::abort();
    read = Fd(fds[0]);
    write = Fd(fds[1]);
  }
};

std::string status_text(int status) {
  if (WIFEXITED(status)) return "exited with " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return std::string("killed by ") + strsignal(WTERMSIG(status)) + " (" +
           std::to_string(WTERMSIG(status)) + ")";
  }
  return "status " + std::to_string(status);
}

// Runs `body` in a forked child, which exits with what it returns (kConfinementFailed when it
// throws); returns the child's wait status.
int run_in_child(const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid < 0) std::abort();
  if (pid == 0) {
    alarm(kChildDeadlineSeconds);
    int code = kConfinementFailed;
    try {
      code = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    _exit(code);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) std::abort();
  }
  return status;
}

// The options of a worker that keeps stderr (for a child's message on a failure) and `fds`.
ConfinementOptions worker_keeping(std::vector<int> fds = {}) {
  ConfinementOptions options;
  options.keep_fds = std::move(fds);
  options.keep_fds.push_back(STDERR_FILENO);
  return options;
}

bool killed_by_sigsys(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS; }

// A child confined with `policy` runs `forbidden`; the filter must kill it.
void expect_worker_killed(const std::function<void()>& forbidden, SyscallPolicy policy) {
  const int status = run_in_child([&] {
    ConfinementOptions options = worker_keeping();
    options.policy = policy;
    confine_current_process(options);
    forbidden();
    return kNotKilled;
  });
  EXPECT_TRUE(killed_by_sigsys(status)) << status_text(status);
}

void expect_worker_killed(const std::function<void()>& forbidden) {
  expect_worker_killed(forbidden, SyscallPolicy::kWorker);
}

// A confined child runs `checks`, which returns 0 or the exit code of the first failed check.
void expect_worker_succeeds(const std::function<int()>& checks,
                            const ConfinementOptions& options = worker_keeping()) {
  const int status = run_in_child([&] {
    confine_current_process(options);
    return checks();
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
}

// --- What a worker must not do ---------------------------------------------------------------

TEST(Confinement, OpeningAFileKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] { (void)open(kHostFile, O_RDONLY | O_CLOEXEC); });
}

TEST(Confinement, CreatingASocketKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] { (void)socket(AF_INET, SOCK_STREAM, 0); });
}

TEST(Confinement, ExecutingAProgramKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] {
    char* const argv[] = {const_cast<char*>("true"), nullptr};
    char* const envp[] = {nullptr};
    (void)execve("/bin/true", argv, envp);
  });
}

TEST(Confinement, ForkingKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] {
    if (fork() == 0) _exit(0);
  });
}

// CLONE_THREAD without CLONE_SIGHAND is invalid: were the filter to let it through, the kernel
// would answer EINVAL instead of starting a thread.
TEST(Confinement, AThreadWithANamespaceOfItsOwnKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] { (void)syscall(SYS_clone, CLONE_THREAD | CLONE_NEWNET, 0, 0, 0, 0); });
}

TEST(Confinement, TracingKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] { (void)ptrace(PTRACE_TRACEME, 0, nullptr, nullptr); });
}

TEST(Confinement, ReadingAnotherProcessesMemoryKillsTheWorkerWithSIGSYS) {
  const pid_t parent = getpid();
  static char target[16];
  expect_worker_killed([&] {
    char buffer[sizeof target];
    iovec local{buffer, sizeof buffer};
    iovec remote{target, sizeof target};
    (void)process_vm_readv(parent, &local, 1, &remote, 1, 0);
  });
}

TEST(Confinement, SignallingTheParentKillsTheWorkerWithSIGSYS) {
  const pid_t parent = getpid();
  expect_worker_killed([&] { (void)kill(parent, 0); });
}

TEST(Confinement, AKernelModeUserfaultfdKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] { (void)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK); });
}

TEST(Confinement, AnIoctlOtherThanUserfaultfdsKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] {
    int bytes = 0;
    (void)ioctl(STDERR_FILENO, FIONREAD, &bytes);
  });
}

TEST(Confinement, DuplicatingADescriptorKillsTheWorkerWithSIGSYS) {
  expect_worker_killed([] { (void)fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0); });
}

TEST(Confinement, SettingTheParentsCpusKillsTheWorkerWithSIGSYS) {
  const pid_t parent = getpid();
  expect_worker_killed([&] {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    (void)sched_setaffinity(parent, sizeof cpus, &cpus);
  });
}

// --- What a worker can still do --------------------------------------------------------------

TEST(Confinement, AWorkerCanCreateAndJoinThreads) {
  expect_worker_succeeds([] {
    std::atomic<int> sum{0};
    std::vector<std::thread> threads;
    for (int i = 1; i <= 4; ++i) {
      threads.emplace_back([&sum, i] {
        std::vector<int> heap(1000, i);  // a first allocation in a new thread
        sum += heap.back();
      });
    }
    for (auto& t : threads) t.join();
    return sum == 10 ? 0 : kCheckFailed;
  });
}

TEST(Confinement, AWorkerCanMapProtectAndUnmapMemory) {
  expect_worker_succeeds([] {
    const std::size_t length = 16 * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return kCheckFailed;
    static_cast<char*>(p)[0] = 1;
    if (mprotect(p, length, PROT_READ) != 0) return kCheckFailed + 1;
    if (madvise(p, length, MADV_DONTNEED) != 0) return kCheckFailed + 2;
    if (munmap(p, length) != 0) return kCheckFailed + 3;
    std::vector<char> big(8 << 20, 'x');  // malloc's mmap path
    return big[12345] == 'x' ? 0 : kCheckFailed + 4;
  });
}

TEST(Confinement, AWorkerCanReadClocksSleepAndDrawRandomBytes) {
  expect_worker_succeeds([] {
    timespec t{};
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return kCheckFailed;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return kCheckFailed + 1;
    const auto before = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (std::chrono::steady_clock::now() <= before) return kCheckFailed + 2;
    unsigned char bytes[32] = {};
    if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
      return kCheckFailed + 3;
    }
    return 0;
  });
}

TEST(Confinement, AWorkerCanCreateSizeAndMapAMemfd) {
  expect_worker_succeeds([] {
    const Fd fd(memfd_create("confinement-test", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (fd.get() < 0) return kCheckFailed;
    constexpr std::size_t kBytes = 1 << 20;
    if (ftruncate(fd.get(), kBytes) != 0) return kCheckFailed + 1;
    struct stat st{};
    if (fstat(fd.get(), &st) != 0 || st.st_size != static_cast<off_t>(kBytes)) {
      return kCheckFailed + 2;
    }
    auto* p =
        static_cast<char*>(mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0));
    if (p == MAP_FAILED) return kCheckFailed + 3;
    p[kBytes - 1] = 7;
    if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) return kCheckFailed + 4;
    const int seals = fcntl(fd.get(), F_GET_SEALS);
    if ((seals & F_SEAL_GROW) == 0) return kCheckFailed + 5;
    char back = 0;
    if (pread(fd.get(), &back, 1, kBytes - 1) != 1 || back != 7) return kCheckFailed + 6;
    return munmap(p, kBytes) == 0 ? 0 : kCheckFailed + 7;
  });
}

TEST(Confinement, AWorkerCanWriteToItsChannel) {
  Pipe channel;
  const int status = run_in_child([&] {
    confine_current_process(worker_keeping({channel.write.get()}));
    const char message[] = "hello from a confined worker";
    return write(channel.write.get(), message, sizeof message) == sizeof message ? 0 : kCheckFailed;
  });
  channel.write.reset();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
  char got[64] = {};
  ASSERT_GT(read(channel.read.get(), got, sizeof got), 0);
  EXPECT_STREQ(got, "hello from a confined worker");
}

volatile sig_atomic_t g_signalled = 0;
void on_signal(int) { g_signalled = 1; }

// docs/security.md#restore-overlap: a restore's thread moves off its server's CPU and back.
TEST(Confinement, AWorkerCanSetTheCpusOfItsOwnThread) {
  expect_worker_succeeds([] {
    cpu_set_t before;
    if (sched_getaffinity(0, sizeof before, &before) != 0) return kCheckFailed;
    const cpu_set_t one = testing_support::first_cpu_of(before);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return kCheckFailed + 1;
    cpu_set_t now;
    if (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, &one)) {
      return kCheckFailed + 2;
    }
    return sched_setaffinity(0, sizeof before, &before) == 0 ? 0 : kCheckFailed + 3;
  });
}

TEST(Confinement, AWorkerCanSignalItself) {
  expect_worker_succeeds([] {
    struct sigaction action{};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGUSR1, &action, nullptr) != 0) return kCheckFailed;
    if (raise(SIGUSR1) != 0) return kCheckFailed + 1;  // tgkill(getpid(), gettid(), SIGUSR1)
    return g_signalled == 1 ? 0 : kCheckFailed + 2;
  });
}

TEST(Confinement, AWorkerCanOpenAUserModeUserfaultfd) {
  const int status = run_in_child([] {
    confine_current_process(worker_keeping());
    const Fd fd(
        static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY)));
    if (fd.get() < 0) return kLayerUnavailable;  // an old kernel, or vm.unprivileged_userfaultfd
    uffdio_api api{};
    api.api = UFFD_API;
    return ioctl(fd.get(), UFFDIO_API, &api) == 0 ? 0 : kCheckFailed;
  });
  if (WIFEXITED(status) && WEXITSTATUS(status) == kLayerUnavailable) {
    GTEST_SKIP() << "this kernel gives no user-mode userfaultfd to this process";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
}

// --- Descriptors -----------------------------------------------------------------------------

TEST(Confinement, ADescriptorNotKeptIsClosed) {
  Pipe kept;
  Pipe other;
  const int status = run_in_child([&] {
    const ConfinementReport report = confine_current_process(worker_keeping({kept.write.get()}));
    if (fcntl(kept.write.get(), F_GETFD) < 0) return kCheckFailed;
    if (fcntl(other.write.get(), F_GETFD) >= 0 || errno != EBADF) return kCheckFailed + 1;
    if (fcntl(other.read.get(), F_GETFD) >= 0 || errno != EBADF) return kCheckFailed + 2;
    // kept.read, other.read and other.write at least (stdin and stdout too, when open).
    return report.closed_fds >= 3 ? 0 : kCheckFailed + 3;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
}

// A memfd of `bytes` bytes of `fill`, sealed against writing when `seal`.
Fd make_memfd(bool seal, char fill, std::size_t bytes) {
  Fd fd(memfd_create("confinement-image", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  const std::vector<char> content(bytes, fill);
  if (fd.get() < 0 || write(fd.get(), content.data(), bytes) != static_cast<ssize_t>(bytes)) {
    std::abort();
  }
  if (seal && fcntl(fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
    std::abort();
  }
  return fd;
}

TEST(Confinement, ASealedMemfdIsKeptAndAnUnsealedOneIsClosed) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const Fd sealed = make_memfd(true, 's', page);
  const Fd unsealed = make_memfd(false, 'u', page);
  expect_worker_succeeds([&] {
    if (fcntl(unsealed.get(), F_GETFD) >= 0 || errno != EBADF) return kCheckFailed;
    // The image is still there, and can only be read.
    const void* p = mmap(nullptr, page, PROT_READ, MAP_PRIVATE, sealed.get(), 0);
    if (p == MAP_FAILED || static_cast<const char*>(p)[page - 1] != 's') return kCheckFailed + 1;
    return 0;
  });
}

TEST(Confinement, WithoutKeepSealedMemfdsASealedMemfdIsClosedToo) {
  const Fd sealed = make_memfd(true, 's', static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
  ConfinementOptions options = worker_keeping();
  options.keep_sealed_memfds = false;
  expect_worker_succeeds(
      [&] { return fcntl(sealed.get(), F_GETFD) < 0 && errno == EBADF ? 0 : kCheckFailed; },
      options);
}

TEST(Confinement, KeepingADescriptorThatIsNotOpenIsAnError) {
  const int status = run_in_child([] {
    Fd closed(dup(STDERR_FILENO));
    const int number = closed.get();
    closed.reset();
    try {
      confine_current_process(worker_keeping({number}));
    } catch (const std::system_error& e) {
      return e.code() == std::errc::bad_file_descriptor ? 0 : kCheckFailed;
    }
    return kCheckFailed + 1;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
}

// --- The other layers, without the filter ----------------------------------------------------

TEST(Confinement, WithoutSeccompLandlockRefusesOpeningAnExistingFile) {
  // A file this test is sure exists and may read.
  char path[] = "/tmp/confinement-test-XXXXXX";
  const Fd file(mkstemp(path));
  ASSERT_GE(file.get(), 0) << std::strerror(errno);
  ConfinementOptions options = worker_keeping();
  options.seccomp = false;
  options.network_namespace = false;
  const int status = run_in_child([&] {
    const ConfinementReport report = confine_current_process(options);
    if (!report.landlock) return kLayerUnavailable;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return kCheckFailed;
    return errno == EACCES ? 0 : kCheckFailed + 1;
  });
  unlink(path);
  if (WIFEXITED(status) && WEXITSTATUS(status) == kLayerUnavailable) {
    GTEST_SKIP() << "this kernel has no Landlock (not built, or not in the lsm= list)";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
}

TEST(Confinement, WithoutSeccompTheNetworkNamespaceCannotReachTheHostsLoopback) {
  const Fd listener(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_GE(listener.get(), 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(listener.get(), 1), 0);
  ASSERT_EQ(getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length), 0);

  ConfinementOptions options = worker_keeping();
  options.seccomp = false;
  options.landlock = false;
  const int status = run_in_child([&] {
    const ConfinementReport report = confine_current_process(options);
    if (!report.network_namespace) return kLayerUnavailable;
    const Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) return kCheckFailed;
    const bool connected =
        connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    return connected ? kCheckFailed + 1 : 0;
  });
  if (WIFEXITED(status) && WEXITSTATUS(status) == kLayerUnavailable) {
    GTEST_SKIP() << "this process may create neither a user nor a network namespace";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
}

TEST(Confinement, WithoutSeccompTheWorkerStaysDumpable) {
  ConfinementOptions options = worker_keeping();
  options.seccomp = false;
  expect_worker_succeeds([] { return prctl(PR_GET_DUMPABLE) == 1 ? 0 : kCheckFailed; }, options);
}

// The server reads a worker's memory with process_vm_readv: confinement must not prevent it.
TEST(Confinement, TheParentCanReadAConfinedWorkersMemory) {
  static char secret[] = "the worker's linear memory";
  Pipe address;
  Pipe done;
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(kChildDeadlineSeconds);
    try {
      confine_current_process(worker_keeping({address.write.get(), done.read.get()}));
    } catch (const std::exception&) {
      _exit(kConfinementFailed);
    }
    const auto at = reinterpret_cast<std::uintptr_t>(secret);
    if (write(address.write.get(), &at, sizeof at) != sizeof at) _exit(kCheckFailed);
    char byte = 0;
    (void)read(done.read.get(), &byte, 1);  // until the parent closes its end
    _exit(0);
  }
  address.write.reset();
  done.read.reset();
  std::uintptr_t at = 0;
  const bool got_address = read(address.read.get(), &at, sizeof at) == sizeof at;
  char copy[sizeof secret] = {};
  ssize_t copied = -1;
  if (got_address) {
    iovec local{copy, sizeof copy};
    iovec remote{reinterpret_cast<void*>(at), sizeof copy};
    copied = process_vm_readv(pid, &local, 1, &remote, 1, 0);
  }
  const int read_errno = errno;
  done.write.reset();
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(got_address) << status_text(status);
  ASSERT_EQ(copied, static_cast<ssize_t>(sizeof copy)) << std::strerror(read_errno);
  EXPECT_STREQ(copy, secret);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
}

// --- The zygote ------------------------------------------------------------------------------

TEST(Confinement, AZygoteCanForkAWorkerThatConfinesItselfAndIsKilledOnOpen) {
  const int status = run_in_child([] {
    ConfinementOptions zygote = worker_keeping();
    zygote.policy = SyscallPolicy::kZygote;
    confine_current_process(zygote);
    const pid_t worker = fork();
    if (worker < 0) return kCheckFailed;
    if (worker == 0) {
      try {
        confine_current_process(worker_keeping());
      } catch (const std::exception&) {
        _exit(kConfinementFailed);
      }
      (void)open(kHostFile, O_RDONLY | O_CLOEXEC);
      _exit(kNotKilled);
    }
    int worker_status = 0;
    if (waitpid(worker, &worker_status, 0) != worker) return kCheckFailed + 1;
    if (WIFEXITED(worker_status)) return WEXITSTATUS(worker_status);  // why it was not killed
    return killed_by_sigsys(worker_status) ? 0 : kCheckFailed + 2;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
}

TEST(Confinement, OpeningAFileKillsTheZygoteWithSIGSYS) {
  expect_worker_killed([] { (void)open(kHostFile, O_RDONLY | O_CLOEXEC); }, SyscallPolicy::kZygote);
}

TEST(Confinement, AZygoteCanCreateOnlyUnixSocketPairs) {
  expect_worker_killed(
      [] {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) _exit(kCheckFailed);
        (void)socketpair(AF_INET, SOCK_STREAM, 0, pair);
      },
      SyscallPolicy::kZygote);
}

// --- The report ------------------------------------------------------------------------------

TEST(Confinement, TheReportNamesEveryLayerPutInPlace) {
  Pipe channel;
  const int status = run_in_child([&] {
    const ConfinementReport report = confine_current_process(worker_keeping({channel.write.get()}));
    return write(channel.write.get(), &report, sizeof report) == sizeof report ? 0 : kCheckFailed;
  });
  channel.write.reset();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status_text(status);
  ConfinementReport report;
  ASSERT_EQ(read(channel.read.get(), &report, sizeof report), static_cast<ssize_t>(sizeof report));
  EXPECT_TRUE(report.seccomp);
  EXPECT_TRUE(report.no_new_privs);
  EXPECT_EQ(report.landlock, report.landlock_abi > 0);
  std::printf("this machine: %s\n", describe(report).c_str());
}

TEST(Confinement, DescribeNamesThePresentAndTheMissingLayers) {
  EXPECT_EQ(describe({.no_new_privs = true,
                      .seccomp = true,
                      .landlock = true,
                      .network_namespace = true,
                      .landlock_abi = 4,
                      .closed_fds = 3}),
            "seccomp, no_new_privs, landlock (ABI 4), network namespace; 3 descriptors closed");
  EXPECT_EQ(describe({.no_new_privs = true, .seccomp = true, .closed_fds = 1}),
            "seccomp, no_new_privs (without landlock, network namespace); 1 descriptor closed");
  EXPECT_EQ(describe({}),
            "nothing (without seccomp, no_new_privs, landlock, network namespace); "
            "0 descriptors closed");
}

}  // namespace
}  // namespace sandbox::isolation
