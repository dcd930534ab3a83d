// The write/open policy matrix of docs/guest-abi.md#wasi-write-policy and the workspace limits for
// guest writes.
#include <gtest/gtest.h>

#include "wasi_test_util.h"

namespace sandbox {
namespace {

using testing_wasi::FakeGuest;
using namespace sandbox::wasi;

constexpr std::uint32_t kStdlibFd = 3;
constexpr std::uint32_t kDevFd = 4;
constexpr std::uint32_t kWorkspaceFd = 5;

class WasiPolicy : public ::testing::Test {
 protected:
  WasiPolicy() : ws_(clock_), g_(WasiOptions{.workspace = &ws_}) {
    ws_.mkdir("/workspace/dir", false);
    ws_.write("/workspace/file.txt", "content");
  }
  ManualClock clock_;
  Workspace ws_;
  FakeGuest g_;
};

TEST_F(WasiPolicy, MutationsOutsideTheWorkspaceAreEperm) {
  for (const std::uint32_t fd : {kStdlibFd, kDevFd}) {
    SCOPED_TRACE(fd);
    EXPECT_EQ(g_.mkdir(fd, "x"), kEPerm);
    EXPECT_EQ(g_.unlink(fd, "null"), kEPerm);
    EXPECT_EQ(g_.rmdir(fd, "x"), kEPerm);
    EXPECT_EQ(g_.rename(fd, "null", fd, "x"), kEPerm);
    EXPECT_EQ(g_.rename(kWorkspaceFd, "file.txt", fd, "x"), kEPerm);
    EXPECT_EQ(g_.rename(fd, "null", kWorkspaceFd, "x"), kEPerm);
    EXPECT_EQ(g_.open(fd, "x", kOflagCreat, true).first, kEPerm);
    EXPECT_EQ(g_.open(fd, "x", kOflagTrunc).first, kEPerm);
  }
  // Still EPERM while disabled: the flag only concerns /workspace.
  ws_.set_disabled(true);
  EXPECT_EQ(g_.mkdir(kStdlibFd, "x"), kEPerm);
}

TEST_F(WasiPolicy, DisabledWorkspaceRefusesEveryAccessWithEacces) {
  auto [err, open_before] = g_.open(kWorkspaceFd, "file.txt");
  ASSERT_EQ(err, 0u);
  ws_.set_disabled(true);  // read at call time, also by a live host
  EXPECT_EQ(g_.open(kWorkspaceFd, "file.txt").first, kEAcces);
  EXPECT_EQ(g_.open(kWorkspaceFd, "missing.txt").first, kEAcces);
  EXPECT_EQ(g_.open(kWorkspaceFd, "new.txt", kOflagCreat, true).first, kEAcces);
  EXPECT_EQ(g_.open(kWorkspaceFd, "../escape").first, kEAcces);
  EXPECT_EQ(g_.readdir(kWorkspaceFd).first, kEAcces);
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, "x"), kEAcces);
  EXPECT_EQ(g_.unlink(kWorkspaceFd, "file.txt"), kEAcces);
  EXPECT_EQ(g_.rmdir(kWorkspaceFd, "dir"), kEAcces);
  EXPECT_EQ(g_.rename(kWorkspaceFd, "file.txt", kWorkspaceFd, "y"), kEAcces);
  // Stat is not gated (upstream); other mounts are unaffected.
  EXPECT_EQ(g_.stat(kWorkspaceFd, "file.txt").first, 0u);
  EXPECT_EQ(g_.open(kDevFd, "null").first, 0u);
  EXPECT_EQ(g_.readdir(kStdlibFd).first, 0u);
  // A descriptor opened before keeps working.
  EXPECT_EQ(g_.read(open_before).second, "content");

  ws_.set_disabled(false);
  EXPECT_EQ(g_.open(kWorkspaceFd, "file.txt").first, 0u);
  EXPECT_EQ(g_.readdir(kWorkspaceFd).first, 0u);
}

TEST_F(WasiPolicy, DisabledAppliesToSubdirectoryDescriptors) {
  auto [err, dfd] = g_.open(kWorkspaceFd, "dir", kOflagDirectory);
  ASSERT_EQ(err, 0u);
  ws_.set_disabled(true);
  EXPECT_EQ(g_.open(dfd, "x", kOflagCreat, true).first, kEAcces);
  EXPECT_EQ(g_.readdir(dfd).first, kEAcces);
  EXPECT_EQ(g_.mkdir(dfd, "x"), kEAcces);
}

TEST_F(WasiPolicy, FilesAreCappedAtOneMebibyte) {
  auto [err, fd] = g_.open(kWorkspaceFd, "big.bin", kOflagCreat, true);
  ASSERT_EQ(err, 0u);
  const std::string chunk(256 * 1024, 'b');
  for (int i = 0; i < 4; ++i) ASSERT_EQ(g_.write(fd, {chunk}).first, 0u);
  EXPECT_EQ(ws_.stat("/workspace/big.bin").size, kMaxFileBytes);
  EXPECT_EQ(g_.write(fd, {"x"}).first, kEFbig);
  EXPECT_EQ(ws_.stat("/workspace/big.bin").size, kMaxFileBytes);  // nothing partial
  // Overwriting inside the limit is fine.
  const std::uint32_t out = g_.alloc(8);
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_seek(g_.ctx(), fd, 0, kWhenceSet, out), 0u);
  EXPECT_EQ(g_.write(fd, {"head"}).first, 0u);
}

TEST_F(WasiPolicy, TheWorkspaceTotalIsCapped) {
  const std::string mib(kMaxFileBytes, 'x');
  for (int i = 0; i < 15; ++i) ws_.write("/workspace/f" + std::to_string(i), mib);
  auto [err, fd] = g_.open(kWorkspaceFd, "last", kOflagCreat, true);
  ASSERT_EQ(err, 0u);
  // 15 MiB + "content" (7 bytes) + 1 MiB is over 16 MiB.
  EXPECT_EQ(g_.write(fd, {std::string(kMaxFileBytes, 'y')}).first, kENospc);
  EXPECT_EQ(g_.write(fd, {std::string(1000, 'y')}).first, 0u);
}

TEST_F(WasiPolicy, TheEntryCountIsCapped) {
  // Two entries exist (dir, file.txt).
  for (std::uint64_t i = 2; i < kMaxWorkspaceEntries; ++i) {
    ASSERT_EQ(g_.mkdir(kWorkspaceFd, "d" + std::to_string(i)), 0u) << i;
  }
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, "one-more"), kENospc);
  EXPECT_EQ(g_.open(kWorkspaceFd, "one-more.txt", kOflagCreat, true).first, kENospc);
  // Opening existing files still works.
  EXPECT_EQ(g_.open(kWorkspaceFd, "file.txt").first, 0u);
}

}  // namespace
}  // namespace sandbox
