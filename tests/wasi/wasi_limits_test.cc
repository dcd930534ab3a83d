// The workspace limits against a guest (issue 12): what descriptors keep alive outside the tree
// counts, the path limits hold for what a guest creates or moves, and host helpers do not
// recurse over guest-built trees.
#include <gtest/gtest.h>

#include "wasi_test_util.h"

namespace sandbox {
namespace {

using testing_wasi::FakeGuest;
using namespace sandbox::wasi;

constexpr std::uint32_t kWorkspaceFd = 5;

class WasiLimits : public ::testing::Test {
 protected:
  WasiLimits() : ws_(clock_), g_(WasiOptions{.workspace = &ws_}) {
    // One MiB of guest memory, written from again and again.
    mib_ = g_.alloc(kMaxFileBytes);
    std::memset(g_.memory().data + mib_, 'm', kMaxFileBytes);
    iov_ = g_.alloc(8);
    std::memcpy(g_.memory().data + iov_, &mib_, 4);
    const std::uint32_t len = kMaxFileBytes;
    std::memcpy(g_.memory().data + iov_ + 4, &len, 4);
    out_ = g_.alloc(4);
  }
  // fd_write of the whole MiB; the errno.
  std::uint32_t write_mib(std::uint32_t fd) {
    return Z_wasi_snapshot_preview1Z_fd_write(g_.ctx(), fd, iov_, 1, out_);
  }
  std::uint32_t open_dir(std::uint32_t dirfd, std::string_view path) {
    auto [err, fd] = g_.open(dirfd, path, kOflagDirectory);
    EXPECT_EQ(err, 0u) << path;
    return fd;
  }

  ManualClock clock_;
  Workspace ws_;
  FakeGuest g_;
  std::uint32_t mib_ = 0;
  std::uint32_t iov_ = 0;
  std::uint32_t out_ = 0;
};

// Regression: a Python context wrote 40 MiB through unlinked open files under the 16 MiB quota.
TEST_F(WasiLimits, UnlinkedOpenFilesCountAgainstTheWorkspaceTotal) {
  std::uint64_t written = 0;
  std::uint32_t refused = 0;
  std::uint32_t first = 0;
  for (int i = 0; i < 20 && refused == 0; ++i) {
    const std::string name = "tmp" + std::to_string(i);
    auto [err, fd] = g_.open(kWorkspaceFd, name, kOflagCreat, true);
    ASSERT_EQ(err, 0u);
    if (i == 0) first = fd;
    ASSERT_EQ(g_.unlink(kWorkspaceFd, name), 0u);  // unlink while open, as tempfile does
    refused = write_mib(fd);
    if (refused == 0) written += kMaxFileBytes;
  }
  EXPECT_EQ(refused, kENospc);
  EXPECT_EQ(written, kMaxTotalBytes);
  EXPECT_EQ(ws_.stats().entries, 0u);  // nothing of it is in the tree
  // The tree cannot take more either, while the descriptors live.
  auto [err, fd] = g_.open(kWorkspaceFd, "visible", kOflagCreat, true);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(g_.write(fd, {"x"}).first, kENospc);
  // Closing an unlinked file frees what it held.
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_close(g_.ctx(), first), 0u);
  EXPECT_EQ(write_mib(fd), 0u);
}

TEST_F(WasiLimits, RemovedDirectoriesHeldOpenCountAgainstTheEntryLimit) {
  ASSERT_EQ(g_.mkdir(kWorkspaceFd, "gone"), 0u);
  const std::uint32_t dfd = open_dir(kWorkspaceFd, "gone");
  ASSERT_EQ(g_.rmdir(kWorkspaceFd, "gone"), 0u);
  std::uint64_t made = 0;
  std::uint32_t err = 0;
  while (err == 0 && made < kMaxWorkspaceEntries + 10) {
    err = g_.mkdir(dfd, "d" + std::to_string(made));
    if (err == 0) ++made;
  }
  EXPECT_EQ(err, kENospc);
  EXPECT_EQ(made, kMaxWorkspaceEntries - 1);  // the removed directory itself counts
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, "in-tree"), kENospc);
}

// After a guest error the server rolls the tree back (restore_from): the nodes it replaced stay
// reachable through descriptors and still count.
TEST_F(WasiLimits, NodesARollbackReplacedStillCount) {
  std::vector<std::uint32_t> fds;
  for (int i = 0; i < 16; ++i) {
    auto [err, fd] = g_.open(kWorkspaceFd, "f" + std::to_string(i), kOflagCreat, true);
    ASSERT_EQ(err, 0u);
    ASSERT_EQ(write_mib(fd), 0u);
    fds.push_back(fd);
  }
  auto [small_err, small] = g_.open(kWorkspaceFd, "small", kOflagCreat, true);
  ASSERT_EQ(small_err, 0u);
  ws_.restore_from({});
  EXPECT_EQ(ws_.stats().bytes, 0u);
  auto [err, fd] = g_.open(kWorkspaceFd, "after", kOflagCreat, true);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(write_mib(fd), kENospc);
  EXPECT_EQ(g_.write(small, {"x"}).first, kENospc);
  // Once the guest lets them go, the space is back.
  for (const std::uint32_t old : fds) Z_wasi_snapshot_preview1Z_fd_close(g_.ctx(), old);
  EXPECT_EQ(write_mib(fd), 0u);
}

// Regression: a guest that keeps opening a directory and creating one below it was bounded only
// by the entry count, building paths of megabytes that every walk copied at every level.
TEST_F(WasiLimits, GuestDirectoryChainsStopAtTheDepthLimit) {
  std::uint32_t dfd = kWorkspaceFd;
  std::size_t depth = 0;
  std::uint32_t err = 0;
  while (depth < kMaxWorkspaceEntries) {
    err = g_.mkdir(dfd, "d");
    if (err != 0) break;
    const std::uint32_t next = open_dir(dfd, "d");
    if (dfd != kWorkspaceFd) Z_wasi_snapshot_preview1Z_fd_close(g_.ctx(), dfd);
    dfd = next;
    ++depth;
  }
  EXPECT_EQ(err, kENametoolong);
  EXPECT_EQ(depth, kMaxPathDepth);
  auto [open_err, fd] = g_.open(dfd, "f", kOflagCreat, true);
  EXPECT_EQ(open_err, kENametoolong);
}

TEST_F(WasiLimits, GuestPathsPastTheLimitsAreRefused) {
  const std::string name(kMaxPathSegmentBytes, 'n');
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, name + "n"), kENametoolong);
  EXPECT_EQ(g_.open(kWorkspaceFd, name + "n", kOflagCreat, true).first, kENametoolong);
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, std::string("a\0b", 3)), kEInval);
  // Long names through a descriptor: 15 levels of 255 bytes fit in 4,096, a 16th does not.
  std::uint32_t dfd = kWorkspaceFd;
  for (int i = 0; i < 15; ++i) {
    ASSERT_EQ(g_.mkdir(dfd, name), 0u) << i;
    dfd = open_dir(dfd, name);
  }
  EXPECT_EQ(g_.mkdir(dfd, name), kENametoolong);
  EXPECT_EQ(g_.mkdir(dfd, "short"), 0u);
  EXPECT_EQ(ws_.stats().entries, 16u);
}

TEST_F(WasiLimits, GuestRenameCannotTakeASubtreePastTheLimits) {
  std::string deep = "a";
  for (int i = 0; i < 199; ++i) deep += "/a";
  ws_.mkdir(deep, true);  // 200 levels
  std::string sub = "b";
  for (int i = 0; i < 100; ++i) sub += "/c";
  ws_.mkdir(sub, true);  // b and 100 levels below it
  EXPECT_EQ(g_.rename(kWorkspaceFd, "b", kWorkspaceFd, deep + "/b"), kENametoolong);
  EXPECT_TRUE(ws_.exists("b"));
  // Moving it back from outside the tree is checked the same way.
  const std::uint32_t held = open_dir(kWorkspaceFd, "b");
  ws_.remove("b", true, false);
  EXPECT_EQ(g_.rename(held, "c", kWorkspaceFd, deep + "/c"), kENametoolong);
  EXPECT_EQ(g_.rename(held, "c", kWorkspaceFd, "c"), 0u);
  EXPECT_TRUE(ws_.exists("c"));
}

// Regression: subtree_contains recursed once per level of a guest-built tree.
TEST_F(WasiLimits, HostHelpersDoNotRecurseOverGuestTrees) {
  ASSERT_EQ(g_.mkdir(kWorkspaceFd, "deep"), 0u);
  std::shared_ptr<WorkspaceNode> at = ws_.root()->find("deep");
  for (int i = 0; i < 100'000; ++i) {
    auto next = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kDirectory);
    at->put("d", next);
    at = std::move(next);
  }
  at.reset();
  EXPECT_EQ(g_.rename(kWorkspaceFd, "deep", kWorkspaceFd, "moved"), kENametoolong);
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, "x"), kENospc);  // 100,001 entries
  ws_.remove("deep", true, false);
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, "x"), 0u);
}

}  // namespace
}  // namespace sandbox
