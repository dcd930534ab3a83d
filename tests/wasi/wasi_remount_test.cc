// WasiHost::remount_workspace: an instance that passes from one caller to the next gets the next
// caller's /workspace at fd 5 and the environment it was made with, and nothing of the earlier
// caller's tree or variables (docs/snapshot-format.md#restoring-into-an-idle-instance).
#include <stdexcept>

#include <gtest/gtest.h>

#include "wasi_test_util.h"

namespace sandbox {
namespace {

using testing_wasi::FakeGuest;

constexpr std::uint32_t kWorkspaceFd = 5;

std::size_t environ_count(FakeGuest& g) {
  const std::uint32_t count = g.alloc(4);
  const std::uint32_t size = g.alloc(4);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_environ_sizes_get(g.ctx(), count, size), 0u);
  return g.u32(count);
}

TEST(WasiRemount, TheNextCallersTreeReplacesTheEarlierOneAndTheEnvironmentStartsOver) {
  ManualClock clock;
  Workspace earlier(clock);
  Workspace next(clock);
  earlier.write("/workspace/earlier.txt", "the earlier caller's");
  next.write("/workspace/next.txt", "the next caller's");
  FakeGuest g(WasiOptions{.workspace = &earlier});
  g.host().set_env({{"TOKEN", "the earlier caller's secret"}});
  ASSERT_EQ(environ_count(g), 1u);
  const auto [err, fd] = g.open(kWorkspaceFd, "earlier.txt");
  ASSERT_EQ(err, 0u);
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_close(g.ctx(), fd), 0u);

  g.host().remount_workspace(&next);
  EXPECT_EQ(environ_count(g), 0u);
  EXPECT_EQ(g.open(kWorkspaceFd, "earlier.txt").first, wasi::kENoent);
  const auto [next_err, next_fd] = g.open(kWorkspaceFd, "next.txt");
  ASSERT_EQ(next_err, 0u);
  EXPECT_EQ(g.read(next_fd).second, "the next caller's");
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_close(g.ctx(), next_fd), 0u);
  // A guest write lands in the new tree, and the preopen keeps its name.
  const auto [w_err, w_fd] = g.open(kWorkspaceFd, "new.txt", wasi::kOflagCreat, true);
  ASSERT_EQ(w_err, 0u);
  ASSERT_EQ(g.write(w_fd, {"written"}).first, 0u);
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_close(g.ctx(), w_fd), 0u);
  EXPECT_EQ(next.read("/workspace/new.txt").content, "written");
  EXPECT_FALSE(earlier.exists("/workspace/new.txt"));
  // Closing the preopen and restoring the fixed descriptors brings back the new tree.
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_close(g.ctx(), kWorkspaceFd), 0u);
  g.host().restore_fixed_fds();
  EXPECT_EQ(g.open(kWorkspaceFd, "next.txt").first, 0u);
}

TEST(WasiRemount, IsRefusedWithAnOpenDescriptorOrWithoutAWorkspace) {
  ManualClock clock;
  Workspace earlier(clock);
  Workspace next(clock);
  earlier.write("/workspace/held.txt", "x");
  FakeGuest g(WasiOptions{.workspace = &earlier});
  const auto [err, fd] = g.open(kWorkspaceFd, "held.txt");
  ASSERT_EQ(err, 0u);
  EXPECT_THROW(g.host().remount_workspace(&next), std::logic_error);
  EXPECT_EQ(g.read(fd).second, "x") << "a refused remount changes nothing";
  EXPECT_THROW(g.host().remount_workspace(nullptr), std::logic_error);
  FakeGuest without(WasiOptions{});
  EXPECT_THROW(without.host().remount_workspace(&next), std::logic_error);
}

}  // namespace
}  // namespace sandbox
