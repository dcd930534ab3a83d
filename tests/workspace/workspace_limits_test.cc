// The path limits (kMaxPathSegmentBytes, kMaxPathBytes, kMaxPathDepth) at every way into the
// tree, and trees of any depth costing linear time and no stack (issue 12).
#include <chrono>
#include <functional>

#include <gtest/gtest.h>

#include "workspace_test_util.h"

namespace sandbox {
namespace {

using testing_ws::bytes_of;

double elapsed_ms(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

Errno errno_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const WorkspaceError& e) {
    return e.code();
  }
  ADD_FAILURE() << "no WorkspaceError";
  return Errno::kENOENT;
}

// "n/n/.../n", `levels` segments of `name`.
std::string chain(std::size_t levels, const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < levels; ++i) out.append(i ? "/" : "").append(name);
  return out;
}

// Hangs a chain of `levels` directories below `dir`, bypassing every check.
void hang_chain(const std::shared_ptr<WorkspaceNode>& dir, std::size_t levels) {
  std::shared_ptr<WorkspaceNode> at = dir;
  for (std::size_t i = 0; i < levels; ++i) {
    auto next = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kDirectory);
    at->put("d", next);
    at = std::move(next);
  }
}

class WorkspaceLimits : public ::testing::Test {
 protected:
  ManualClock clock_{1'000};
  Workspace ws_{clock_};
};

// Regression: a recursive mkdir of a 2,500-level path held a worker for 158 s (a full tree walk
// copying every path at every level); a path of megabytes was split and copied whole.
TEST_F(WorkspaceLimits, DeepRecursiveMkdirIsRefusedQuickly) {
  const std::string deep = chain(2'500, std::string(800, 'd'));  // 2 MB
  const std::string many = chain(1'000'000, "a");                // 2 MB of one-byte names
  const double ms = elapsed_ms([&] {
    EXPECT_EQ(errno_of([&] { ws_.mkdir(deep, true); }), Errno::kENAMETOOLONG);
    EXPECT_EQ(errno_of([&] { ws_.mkdir(many, true); }), Errno::kENAMETOOLONG);
    EXPECT_EQ(errno_of([&] { ws_.mkdir(chain(2'000, "a"), true); }), Errno::kENAMETOOLONG);
  });
  EXPECT_LT(ms, 1'000);
  EXPECT_EQ(ws_.stats().entries, 0u);
}

TEST_F(WorkspaceLimits, PathDepthLengthAndSegmentsAreBounded) {
  // Exactly at the limits works.
  ws_.mkdir(chain(kMaxPathDepth, "a"), true);
  EXPECT_EQ(ws_.stats().entries, kMaxPathDepth);
  EXPECT_EQ(errno_of([&] { ws_.mkdir(chain(kMaxPathDepth + 1, "a"), true); }),
            Errno::kENAMETOOLONG);
  EXPECT_EQ(errno_of([&] { ws_.write(chain(kMaxPathDepth + 1, "a"), "x"); }), Errno::kENAMETOOLONG);
  const std::string name(kMaxPathSegmentBytes, 'n');
  const std::string file_name(kMaxPathSegmentBytes, 'f');
  ws_.write(file_name, "x");
  EXPECT_EQ(errno_of([&] { ws_.write(file_name + "f", "x"); }), Errno::kENAMETOOLONG);
  // 15 levels of 255-byte names: 10 + 15 * 256 = 3,850 bytes; a 16th passes 4,096.
  ws_.mkdir(chain(15, name), true);
  EXPECT_EQ(errno_of([&] { ws_.mkdir(chain(16, name), true); }), Errno::kENAMETOOLONG);
  // A path given longer than the limit is refused even if it normalizes to something short.
  std::string dotted;
  while (dotted.size() <= kMaxPathBytes) dotted += "./";
  EXPECT_EQ(errno_of([&] { ws_.stat(dotted + "x"); }), Errno::kENAMETOOLONG);
  EXPECT_FALSE(ws_.exists(dotted + "x"));
  // The message names the limit.
  try {
    ws_.read(chain(kMaxPathDepth + 1, "a"));
    FAIL();
  } catch (const WorkspaceError& e) {
    EXPECT_STREQ(e.what(), "Path exceeds 256 levels");
    EXPECT_EQ(errno_name(e.code()), "ENAMETOOLONG");
  }
}

// Regression: a NUL byte went into a name (the tree's names travel as JSON and C strings).
TEST_F(WorkspaceLimits, NulByteIsRefused) {
  const std::string with_nul("a\0b", 3);
  try {
    ws_.write(with_nul, "x");
    FAIL();
  } catch (const WorkspaceError& e) {
    EXPECT_EQ(e.code(), Errno::kEINVAL);
    EXPECT_STREQ(e.what(), "Path contains a NUL byte");
  }
  EXPECT_EQ(errno_of([&] { ws_.mkdir(with_nul, true); }), Errno::kEINVAL);
  EXPECT_EQ(ws_.stats().entries, 0u);
}

TEST_F(WorkspaceLimits, ApplySyncRefusesPathsPastTheLimits) {
  SyncRequest deep;
  deep.dirs = {"/workspace/" + chain(kMaxPathDepth + 1, "a")};
  EXPECT_EQ(errno_of([&] { ws_.apply_sync(deep); }), Errno::kENAMETOOLONG);
  SyncRequest nul;
  nul.files = {SyncFile{std::string("/workspace/a\0b", 14), bytes_of("x"), 1}};
  EXPECT_EQ(errno_of([&] { ws_.apply_sync(nul); }), Errno::kEINVAL);
  EXPECT_EQ(ws_.stats().entries, 0u);
}

TEST_F(WorkspaceLimits, RestoreSkipsRowsPastTheLimits) {
  const std::string ok = "/workspace/" + chain(kMaxPathDepth, "a");
  ws_.restore_from({
      WorkspaceRow{"/workspace/" + chain(kMaxPathDepth + 1, "b"), std::nullopt, 0},
      WorkspaceRow{"/workspace/" + std::string(kMaxPathSegmentBytes + 1, 'c'), bytes_of("x"), 1},
      WorkspaceRow{"/workspace/" + std::string(kMaxPathBytes, 'e'), bytes_of("x"), 1},
      WorkspaceRow{std::string("/workspace/n\0ul", 15), bytes_of("x"), 1},
      WorkspaceRow{ok, std::nullopt, 0},
      WorkspaceRow{"/workspace/kept.txt", bytes_of("kept"), 2},
  });
  EXPECT_EQ(ws_.stats().entries, kMaxPathDepth + 1);
  EXPECT_TRUE(ws_.exists(ok));
  EXPECT_EQ(ws_.read("kept.txt").content, "kept");
}

// Regression (issue: a runtime's workspace sync ignored the file limits): a 1.5 MiB pushed
// file was accepted, and about 60 keys with 18 MiB each exhausted the server's memory. The
// sizes and counts of docs/protocol.md Y6 now hold on the sync as on every other way in.
TEST_F(WorkspaceLimits, ASyncRefusesAFileOverOneMiBBeforeChangingAnything) {
  ws_.write("kept.txt", "kept");
  SyncRequest big;
  big.dirs = {"/workspace/d"};
  big.files = {SyncFile{"/workspace/d/big.bin", std::vector<std::uint8_t>(kMaxFileBytes + 1), 1}};
  EXPECT_EQ(errno_of([&] { ws_.apply_sync(big); }), Errno::kEFBIG);
  EXPECT_FALSE(ws_.exists("d"));
  EXPECT_EQ(ws_.read("kept.txt").content, "kept");
}

TEST_F(WorkspaceLimits, ASyncRefusesMoreThanTheTotalOrTheEntries) {
  SyncRequest bytes;
  for (int i = 0; i < 17; ++i) {
    bytes.files.push_back(
        SyncFile{"/workspace/f" + std::to_string(i), std::vector<std::uint8_t>(kMaxFileBytes), 1});
  }
  EXPECT_EQ(errno_of([&] { ws_.apply_sync(bytes); }), Errno::kENOSPC);
  EXPECT_EQ(ws_.stats().entries, 0u);

  SyncRequest files;
  for (std::uint64_t i = 0; i <= kMaxWorkspaceEntries; ++i) {
    files.files.push_back(SyncFile{"/workspace/f" + std::to_string(i), bytes_of("x"), 1});
  }
  EXPECT_EQ(errno_of([&] { ws_.apply_sync(files); }), Errno::kENOSPC);
  EXPECT_EQ(ws_.stats().entries, 0u);

  // Directories are counted as they are made: the sync stops at the limit, not after making
  // a million of them.
  SyncRequest dirs;
  for (int i = 0; i < 100'000; ++i) dirs.dirs.push_back("/workspace/d" + std::to_string(i));
  EXPECT_EQ(errno_of([&] { ws_.apply_sync(dirs); }), Errno::kENOSPC);
  EXPECT_LE(ws_.stats().entries, kMaxWorkspaceEntries + 1);

  // Parents count too: 4,096 files two levels down need 8,192 entries.
  Workspace fresh(clock_);
  SyncRequest nested;
  for (std::uint64_t i = 0; i < kMaxWorkspaceEntries; ++i) {
    nested.files.push_back(SyncFile{"/workspace/d" + std::to_string(i) + "/f", bytes_of("x"), 1});
  }
  EXPECT_EQ(errno_of([&] { fresh.apply_sync(nested); }), Errno::kENOSPC);
}

// A caller whose workspace changed completely replaces a full mirror: the sync may add the
// limit's worth of entries before its deletions run.
TEST_F(WorkspaceLimits, ASyncMayReplaceAFullWorkspace) {
  SyncRequest first;
  FileHashes manifest;
  for (std::uint64_t i = 0; i < kMaxWorkspaceEntries; ++i) {
    first.files.push_back(SyncFile{"/workspace/old" + std::to_string(i), bytes_of("o"), 1});
  }
  ws_.apply_sync(first);
  ASSERT_EQ(ws_.stats().entries, kMaxWorkspaceEntries);
  SyncRequest second;
  for (std::uint64_t i = 0; i < kMaxWorkspaceEntries; ++i) {
    const std::string path = "/workspace/new" + std::to_string(i);
    second.files.push_back(SyncFile{path, bytes_of("n"), 2});
    manifest[path] = content_hash(bytes_of("n"));
  }
  second.manifest = manifest;
  EXPECT_TRUE(ws_.apply_sync(second).empty());
  EXPECT_EQ(ws_.stats().entries, kMaxWorkspaceEntries);
  EXPECT_TRUE(ws_.exists("new0"));
  EXPECT_FALSE(ws_.exists("old0"));
}

TEST_F(WorkspaceLimits, RestoreSkipsRowsPastTheSizeAndCountLimits) {
  std::vector<WorkspaceRow> rows;
  rows.push_back(WorkspaceRow{"/workspace/big", std::vector<std::uint8_t>(kMaxFileBytes + 1), 1});
  for (int i = 0; i < 16; ++i) {
    rows.push_back(WorkspaceRow{"/workspace/m" + std::to_string(i),
                                std::vector<std::uint8_t>(kMaxFileBytes), 1});
  }
  rows.push_back(WorkspaceRow{"/workspace/over", bytes_of("x"), 1});  // 16 MiB are taken
  for (std::uint64_t i = 0; i < kMaxWorkspaceEntries; ++i) {
    rows.push_back(WorkspaceRow{"/workspace/d/" + std::to_string(i), std::nullopt, 0});
  }
  ws_.restore_from(rows);
  const WorkspaceStats stats = ws_.stats();
  EXPECT_EQ(stats.entries, kMaxWorkspaceEntries);
  EXPECT_EQ(stats.bytes, kMaxTotalBytes);
  EXPECT_FALSE(ws_.exists("big"));
  EXPECT_FALSE(ws_.exists("over"));
  EXPECT_TRUE(ws_.exists("m15"));
}

TEST_F(WorkspaceLimits, RenameCannotTakeASubtreePastTheLimits) {
  ws_.mkdir(chain(200, "a"), true);
  ws_.mkdir("b/" + chain(100, "c"), true);
  EXPECT_EQ(errno_of([&] { ws_.rename("b", chain(200, "a") + "/b"); }), Errno::kENAMETOOLONG);
  EXPECT_TRUE(ws_.exists("b"));
  ws_.rename("b", chain(150, "a") + "/b");  // 150 + 1 + 100 levels fit
  EXPECT_FALSE(ws_.exists("b"));
}

// Regression: destroying a chain of nodes recursed once per level (shared_ptr destructors) and
// overflowed the stack.
TEST_F(WorkspaceLimits, AHundredThousandLevelChainIsDestroyedWithoutStackOverflow) {
  auto ws = std::make_unique<Workspace>(clock_);
  hang_chain(ws->root(), 100'000);
  EXPECT_EQ(ws->stats().entries, 100'000u);  // iterative walks too
  ws.reset();
  // A detached chain, and one replaced by restore_from.
  auto lone = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kDirectory);
  hang_chain(lone, 100'000);
  lone.reset();
  hang_chain(ws_.root(), 100'000);
  ws_.restore_from({});
  EXPECT_EQ(ws_.stats().entries, 0u);
}

// Regression: every walk copied the whole path at every level, and recursive mkdir walked the
// whole tree once per level it created: cubic in depth.
TEST_F(WorkspaceLimits, WalksOfAMaxDepthTreeAreLinear) {
  // A chain at the depth limit whose path is nearly kMaxPathBytes, with 3,500 files at its
  // bottom: every path in the tree is about 4 KiB long.
  const std::string name(14, 'n');
  const std::string deep = chain(kMaxPathDepth - 1, name);
  ws_.mkdir(deep, true);
  std::shared_ptr<WorkspaceNode> bottom = ws_.root();
  for (std::size_t i = 0; i + 1 < kMaxPathDepth; ++i) bottom = bottom->find(name);
  for (int i = 0; i < 3'500; ++i) {
    auto file = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kFile);
    file->data = bytes_of("x");
    bottom->put(std::to_string(i), std::move(file));
  }
  const double mkdir_ms =
      elapsed_ms([&] { ws_.mkdir(chain(kMaxPathDepth, "m" + name.substr(1)), true); });
  EXPECT_LT(mkdir_ms, 1'000);
  const double walks_ms = elapsed_ms([&] {
    EXPECT_EQ(ws_.stats().entries, 2 * kMaxPathDepth - 1 + 3'500);
    EXPECT_EQ(ws_.manifest().files.size(), 3'500u);
    EXPECT_EQ(ws_.serialize().size(), 2 * kMaxPathDepth - 1 + 3'500);
    EXPECT_EQ(ws_.changes({}).created.size(), 3'500u);
  });
  EXPECT_LT(walks_ms, 2'000);
}

}  // namespace
}  // namespace sandbox
