// args, environ, clocks, random, proc_exit, preopen discovery, denied calls, bounds checks.
#include <gtest/gtest.h>

#include "wasi_test_util.h"
#include "wasm/host_call.h"

namespace sandbox {
namespace {

using testing_wasi::Ctx;
using testing_wasi::FakeGuest;
using testing_wasi::trap_of;

std::vector<std::string> read_strings(FakeGuest& g, bool environ) {
  const std::uint32_t count = g.alloc(4);
  const std::uint32_t size = g.alloc(4);
  const std::uint32_t err = environ
                                ? Z_wasi_snapshot_preview1Z_environ_sizes_get(g.ctx(), count, size)
                                : Z_wasi_snapshot_preview1Z_args_sizes_get(g.ctx(), count, size);
  EXPECT_EQ(err, 0u);
  const std::uint32_t n = g.u32(count);
  const std::uint32_t ptrs = g.alloc(4 * n);
  const std::uint32_t buf = g.alloc(g.u32(size));
  EXPECT_EQ(environ ? Z_wasi_snapshot_preview1Z_environ_get(g.ctx(), ptrs, buf)
                    : Z_wasi_snapshot_preview1Z_args_get(g.ctx(), ptrs, buf),
            0u);
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t p = g.u32(ptrs + 4 * i);
    std::string s;
    for (std::uint32_t k = p; g.u8(k) != 0; ++k) s.push_back(static_cast<char>(g.u8(k)));
    out.push_back(s);
  }
  std::uint32_t total = 0;
  for (const auto& s : out) total += static_cast<std::uint32_t>(s.size()) + 1;
  EXPECT_EQ(total, g.u32(size));
  return out;
}

TEST(WasiProcess, ArgsDefaultToSandbox) {
  FakeGuest g(WasiOptions{});
  EXPECT_EQ(read_strings(g, false), std::vector<std::string>{"sandbox"});
}

TEST(WasiProcess, EnvironComesFromTheOptionsAndCanBeReplaced) {
  FakeGuest g(WasiOptions{.env = {{"B", "2"}, {"A", "x=y"}}});
  EXPECT_EQ(read_strings(g, true), (std::vector<std::string>{"A=x=y", "B=2"}));
  g.host().set_env({{"ONLY", "one"}});
  EXPECT_EQ(read_strings(g, true), std::vector<std::string>{"ONLY=one"});
  g.host().set_env({});
  EXPECT_TRUE(read_strings(g, true).empty());
}

TEST(WasiProcess, ClocksUseTheInjectedSources) {
  ManualClock clock(1'700'000'000'123);
  FakeGuest g(WasiOptions{.clock = &clock, .monotonic_ns = [] { return std::uint64_t{42}; }});
  const std::uint32_t out = g.alloc(8);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_time_get(g.ctx(), 0, 1, out), 0u);
  EXPECT_EQ(g.u64(out), 1'700'000'000'123ull * 1'000'000ull);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_time_get(g.ctx(), 1, 1, out), 0u);
  EXPECT_EQ(g.u64(out), 42u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_time_get(g.ctx(), 2, 1, out), 0u);
  EXPECT_EQ(g.u64(out), 0u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_res_get(g.ctx(), 0, out), 0u);
  EXPECT_EQ(g.u64(out), 1'000'000u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_res_get(g.ctx(), 1, out), 0u);
  EXPECT_EQ(g.u64(out), 5'000u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_res_get(g.ctx(), 3, out), wasi::kENosys);
}

TEST(WasiProcess, RealClocksMove) {
  FakeGuest g(WasiOptions{});
  const std::uint32_t a = g.alloc(8);
  const std::uint32_t b = g.alloc(8);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_time_get(g.ctx(), 1, 1, a), 0u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_time_get(g.ctx(), 1, 1, b), 0u);
  EXPECT_LE(g.u64(a), g.u64(b));
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_time_get(g.ctx(), 0, 1, a), 0u);
  EXPECT_GT(g.u64(a), 1'600'000'000'000ull * 1'000'000ull);
}

TEST(WasiProcess, SeededRandomIsDeterministic) {
  FakeGuest a(WasiOptions{.random_seed = 7});
  FakeGuest b(WasiOptions{.random_seed = 7});
  const std::uint32_t pa = a.alloc(37);
  const std::uint32_t pb = b.alloc(37);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_random_get(a.ctx(), pa, 37), 0u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_random_get(b.ctx(), pb, 37), 0u);
  EXPECT_EQ(a.str(pa, 37), b.str(pb, 37));
  EXPECT_NE(a.str(pa, 37), std::string(37, '\0'));
}

TEST(WasiProcess, OsRandomFillsLargeBuffers) {
  FakeGuest g(WasiOptions{});
  const std::uint32_t len = 200'000;  // more than one getrandom chunk
  const std::uint32_t p = g.alloc(len);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_random_get(g.ctx(), p, len), 0u);
  int zeros = 0;
  for (std::uint32_t i = 0; i < len; ++i) zeros += g.u8(p + i) == 0;
  EXPECT_LT(zeros, 2000);  // about 781 expected
}

TEST(WasiProcess, ProcExitTrapsWithTheCode) {
  FakeGuest g(WasiOptions{});
  const auto trap = trap_of([&] { Z_wasi_snapshot_preview1Z_proc_exit(g.ctx(), 3); });
  ASSERT_TRUE(trap.has_value());
  EXPECT_EQ(*trap, static_cast<std::uint32_t>(SANDBOX_TRAP_EXIT));
  EXPECT_EQ(g.host().exit_code(), 3u);
  EXPECT_EQ(sandbox_wasm_exit_code(), 3u);
}

TEST(WasiProcess, ProcRaiseTraps) {
  FakeGuest g(WasiOptions{});
  const auto trap = trap_of([&] { Z_wasi_snapshot_preview1Z_proc_raise(g.ctx(), 6); });
  EXPECT_EQ(trap, static_cast<std::uint32_t>(SANDBOX_TRAP_HOST_ERROR));
  EXPECT_EQ(g.host().host_error(), "proc_raise(6)");
}

TEST(WasiProcess, PreopensAreStdlibDevWorkspaceInOrder) {
  ManualClock clock;
  Workspace ws(clock);
  FakeGuest g(WasiOptions{.workspace = &ws});
  EXPECT_EQ(g.host().fd_base(), 6u);
  const std::vector<std::string> names = {"/stdlib", "/dev", "/workspace"};
  for (std::uint32_t fd = 3; fd < 6; ++fd) {
    const std::uint32_t out = g.alloc(8);
    ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_prestat_get(g.ctx(), fd, out), 0u);
    EXPECT_EQ(g.u8(out), 0u);
    const std::uint32_t len = g.u32(out + 4);
    const std::uint32_t buf = g.alloc(len);
    ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(g.ctx(), fd, buf, len), 0u);
    EXPECT_EQ(g.str(buf, len), names[fd - 3]);
  }
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_prestat_get(g.ctx(), 6, g.alloc(8)), wasi::kEBadf);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_prestat_get(g.ctx(), 1, g.alloc(8)), wasi::kEBadf);

  FakeGuest stateless(WasiOptions{});
  EXPECT_EQ(stateless.host().fd_base(), 5u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_prestat_get(stateless.ctx(), 5, g.alloc(8)), wasi::kEBadf);
}

TEST(WasiProcess, StdioLooksLikePipesNotTerminals) {
  FakeGuest g(WasiOptions{});
  const std::uint32_t out = g.alloc(24);
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_fdstat_get(g.ctx(), 1, out), 0u);
  EXPECT_EQ(g.u8(out), wasi::kFiletypeUnknown);
  EXPECT_NE(g.u64(out + 8) & wasi::kRightFdWrite, 0u);
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_fdstat_get(g.ctx(), 3, out), 0u);
  EXPECT_EQ(g.u8(out), wasi::kFiletypeDirectory);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_fdstat_get(g.ctx(), 99, out), wasi::kEBadf);
}

TEST(WasiProcess, DeniedCapabilitiesAnswerEperm) {
  FakeGuest g(WasiOptions{});
  Ctx* c = g.ctx();
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_poll_oneoff(c, 0, 0, 1, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_sock_accept(c, 3, 0, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_sock_recv(c, 3, 0, 0, 0, 0, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_sock_send(c, 3, 0, 0, 0, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_sock_shutdown(c, 3, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_allocate(c, 1, 0, 10), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_filestat_set_size(c, 1, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_filestat_set_times(c, 1, 0, 0, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_pwrite(c, 1, 0, 0, 0, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_filestat_set_times(c, 3, 0, 0, 0, 0, 0, 0),
            wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_link(c, 3, 0, 0, 0, 3, 0, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_symlink(c, 0, 0, 3, 0, 0), wasi::kEPerm);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_sched_yield(c), 0u);
}

// Every pointer argument is checked: offsets past the end, and ranges that wrap around 2^32.
TEST(WasiProcess, BadPointersAreEfaultNeverACrash) {
  ManualClock clock;
  Workspace ws(clock);
  ws.write("/workspace/f.txt", "data");
  FakeGuest g(WasiOptions{.workspace = &ws});
  Ctx* c = g.ctx();
  const std::uint32_t end = FakeGuest::kSize;
  const std::uint32_t good = g.alloc(64);
  for (const std::uint32_t bad : {end, end - 1, end - 3, 0xfffffffcu, 0xffffffffu}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_args_sizes_get(c, bad, good), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_args_get(c, bad, good), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_args_get(c, good, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_environ_sizes_get(c, good, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_time_get(c, 0, 0, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_clock_res_get(c, 0, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_random_get(c, bad, 16), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_write(c, 1, bad, 1, good), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_write(c, 1, good, 1, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_read(c, 0, bad, 1, good), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_fdstat_get(c, 1, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_filestat_get(c, 3, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_prestat_get(c, 3, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(c, 3, bad, 7), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_readdir(c, 3, bad, 64, 0, good), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_readdir(c, 3, good, 64, 0, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_tell(c, 0, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_seek(c, 0, 0, 0, bad), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_open(c, 5, 0, bad, 5, 0, ~0ull, ~0ull, 0, good),
              wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_filestat_get(c, 5, 0, bad, 5, good), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_create_directory(c, 5, bad, 5), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_unlink_file(c, 5, bad, 5), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_remove_directory(c, 5, bad, 5), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_rename(c, 5, bad, 5, 5, good, 1), wasi::kEFault);
    EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_readlink(c, 5, good, 1, bad, 8, good), wasi::kEFault);
  }
  // A valid iovec array naming an out-of-range buffer.
  const std::uint32_t iov = g.alloc(8);
  const std::uint32_t far = end - 2;
  const std::uint32_t len = 16;
  std::memcpy(g.memory().data + iov, &far, 4);
  std::memcpy(g.memory().data + iov + 4, &len, 4);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_write(c, 1, iov, 1, good), wasi::kEFault);
  EXPECT_TRUE(g.host().logs().stdout_lines.empty());
  // A huge iovec count.
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_write(c, 1, iov, 0x40000000u, good), wasi::kEInval);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_read(c, 0, iov, wasi::kMaxIovecs + 1, good),
            wasi::kEInval);
  // open() with a good path but a bad result pointer creates nothing.
  const std::uint32_t path = g.put("new.txt");
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_path_open(c, 5, 0, path, 7, wasi::kOflagCreat, ~0ull, ~0ull,
                                                0, end),
            wasi::kEFault);
  EXPECT_FALSE(ws.exists("/workspace/new.txt"));
}

TEST(WasiProcess, NoMemoryAttachedMeansEfault) {
  WasiHost host(WasiOptions{});
  auto* c = static_cast<Ctx*>(host.import_context());
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_args_sizes_get(c, 0, 4), wasi::kEFault);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_write(c, 1, 0, 0, 0), wasi::kEFault);
}

}  // namespace
}  // namespace sandbox
