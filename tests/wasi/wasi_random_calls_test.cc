// Random arguments for every import, many times over: whatever the guest passes, the host
// answers with a WASI errno (or a trap it chose), never a crash. Deterministic (fixed seed).
#include <random>

#include <gtest/gtest.h>

#include "wasi_test_util.h"
#include "wasm/host_call.h"

namespace sandbox {
namespace {

using testing_wasi::Ctx;
using testing_wasi::FakeGuest;
using testing_wasi::trap_of;

struct Args {
  std::uint32_t a[9];
  std::uint64_t w[3];
};

// One import call chosen by `which`, with only plain values in the frame (it may trap).
std::uint32_t call_import(Ctx* c, std::uint32_t which, const Args& x) {
  const std::uint32_t* a = x.a;
  const std::uint64_t* w = x.w;
  switch (which % 30) {
    case 0:
      return Z_wasi_snapshot_preview1Z_args_get(c, a[0], a[1]);
    case 1:
      return Z_wasi_snapshot_preview1Z_environ_sizes_get(c, a[0], a[1]);
    case 2:
      return Z_wasi_snapshot_preview1Z_clock_time_get(c, a[0] % 5, w[0], a[1]);
    case 3:
      return Z_wasi_snapshot_preview1Z_random_get(c, a[0], a[1] % 4096);
    case 4:
      return Z_wasi_snapshot_preview1Z_fd_close(c, a[0] % 12);
    case 5:
      return Z_wasi_snapshot_preview1Z_fd_fdstat_get(c, a[0] % 12, a[1]);
    case 6:
      return Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(c, a[0] % 12, a[1] % 64);
    case 7:
      return Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(c, a[0] % 12, w[0], w[1]);
    case 8:
      return Z_wasi_snapshot_preview1Z_fd_filestat_get(c, a[0] % 12, a[1]);
    case 9:
      return Z_wasi_snapshot_preview1Z_fd_pread(c, a[0] % 12, a[1], a[2] % 8, w[0], a[3]);
    case 10:
      return Z_wasi_snapshot_preview1Z_fd_prestat_get(c, a[0] % 12, a[1]);
    case 11:
      return Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(c, a[0] % 12, a[1], a[2] % 64);
    case 12:
      return Z_wasi_snapshot_preview1Z_fd_read(c, a[0] % 12, a[1], a[2] % 8, a[3]);
    case 13:
      return Z_wasi_snapshot_preview1Z_fd_readdir(c, a[0] % 12, a[1], a[2] % 4096, w[0] % 8, a[3]);
    case 14:
      return Z_wasi_snapshot_preview1Z_fd_renumber(c, a[0] % 12, a[1] % 12);
    case 15:
      return Z_wasi_snapshot_preview1Z_fd_seek(c, a[0] % 12, w[0], a[1] % 4, a[2]);
    case 16:
      return Z_wasi_snapshot_preview1Z_fd_tell(c, a[0] % 12, a[1]);
    case 17:
      return Z_wasi_snapshot_preview1Z_fd_write(c, a[0] % 12, a[1], a[2] % 8, a[3]);
    case 18:
      return Z_wasi_snapshot_preview1Z_path_create_directory(c, a[0] % 12, a[1], a[2] % 64);
    case 19:
      return Z_wasi_snapshot_preview1Z_path_filestat_get(c, a[0] % 12, a[1], a[2], a[3] % 64, a[4]);
    case 20:
      return Z_wasi_snapshot_preview1Z_path_open(c, a[0] % 12, a[1], a[2], a[3] % 64, a[4] % 16,
                                                 w[0], w[1], a[5] % 32, a[6]);
    case 21:
      return Z_wasi_snapshot_preview1Z_path_readlink(c, a[0] % 12, a[1], a[2] % 64, a[3], a[4] % 64,
                                                     a[5]);
    case 22:
      return Z_wasi_snapshot_preview1Z_path_remove_directory(c, a[0] % 12, a[1], a[2] % 64);
    case 23:
      return Z_wasi_snapshot_preview1Z_path_rename(c, a[0] % 12, a[1], a[2] % 64, a[3] % 12, a[4],
                                                   a[5] % 64);
    case 24:
      return Z_wasi_snapshot_preview1Z_path_unlink_file(c, a[0] % 12, a[1], a[2] % 64);
    case 25:
      return Z_wasi_snapshot_preview1Z_fd_advise(c, a[0] % 12, w[0], w[1], a[1]);
    case 26:
      return Z_wasi_snapshot_preview1Z_fd_sync(c, a[0] % 12);
    case 27:
      return Z_wasi_snapshot_preview1Z_clock_res_get(c, a[0] % 5, a[1]);
    case 28:
      return Z_wasi_snapshot_preview1Z_args_sizes_get(c, a[0], a[1]);
    default:
      return Z_wasi_snapshot_preview1Z_environ_get(c, a[0], a[1]);
  }
}

TEST(WasiRandomCalls, NeverCrashTheHost) {
  ManualClock clock;
  Workspace ws(clock);
  ws.mkdir("/workspace/d", false);
  ws.write("/workspace/d/f", "file");
  std::mt19937_64 rng(12345);
  auto size = [] { return FakeGuest::kSize; };
  for (int round = 0; round < 4; ++round) {
    FakeGuest g(WasiOptions{.workspace = &ws, .env = {{"K", "V"}}, .random_seed = 1});
    // Memory full of short path-like strings and small numbers, so that some calls succeed.
    const char* words[] = {"d", "d/f", "x", "..", ".", "d/../d", "/abs", "f", "d/g", "null"};
    for (std::uint32_t at = 0; at + 16 < size(); at += 16) {
      const char* word = words[rng() % 10];
      std::memcpy(g.memory().data + at, word, std::strlen(word));
      const std::uint32_t small = static_cast<std::uint32_t>(rng() % 4096) * 16;
      std::memcpy(g.memory().data + at + 8, &small, 4);
      const std::uint32_t len = static_cast<std::uint32_t>(rng() % 8);
      std::memcpy(g.memory().data + at + 12, &len, 4);
    }
    int traps = 0;
    for (int i = 0; i < 20'000; ++i) {
      Args x;
      for (auto& v : x.a) {
        switch (rng() % 4) {
          case 0:
            v = static_cast<std::uint32_t>(rng());
            break;  // anywhere
          case 1:
            v = size() - static_cast<std::uint32_t>(rng() % 64);
            break;  // the edge
          default:
            v = static_cast<std::uint32_t>(rng() % (size() / 16)) * 16;
            break;
        }
      }
      for (auto& v : x.w) v = rng() % 3 == 0 ? rng() : rng() % 1024;
      const auto which = static_cast<std::uint32_t>(rng());
      std::uint32_t err = 0;
      Ctx* c = g.ctx();
      const auto trap = trap_of([&] { err = call_import(c, which, x); });
      if (trap) {
        // The only trap these calls may raise: stdout/stderr over the output limit.
        ASSERT_EQ(*trap, static_cast<std::uint32_t>(SANDBOX_TRAP_OUTPUT_LIMIT));
        ++traps;
        g.host().reset_logs();
        continue;
      }
      ASSERT_LE(err, 76u) << "import " << which % 30;
    }
    EXPECT_LE(ws.stats().entries, kMaxWorkspaceEntries);
  }
}

}  // namespace
}  // namespace sandbox
