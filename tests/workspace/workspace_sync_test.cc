// manifest / changes / serialize / restore_from (docs/protocol.md#manifest-and-changes) and
// apply_sync (docs/protocol.md#sync-order).
#include <gtest/gtest.h>

#include "workspace/utf16_order.h"
#include "workspace/workspace_test_util.h"

namespace sandbox {
namespace {

using testing_ws::bytes_of;
using testing_ws::child_names;
using testing_ws::paths_of;
using testing_ws::text_of;

std::string hash_of(std::string_view s) { return content_hash(bytes_of(s)); }

class WorkspaceSync : public ::testing::Test {
 protected:
  ManualClock clock_{5'000};
  Workspace ws_{clock_};
};

TEST(Utf16Order, DiffersFromByteOrderAboveTheBmp) {
  const std::string halfwidth = "\xEF\xBD\xA1";  // U+FF61: UTF-16 0xFF61
  const std::string emoji = "\xF0\x9F\x98\x80";  // U+1F600: UTF-16 0xD83D 0xDE00
  EXPECT_LT(halfwidth, emoji);                   // bytes: 0xEF < 0xF0
  EXPECT_TRUE(utf16_less(emoji, halfwidth));     // code units: 0xD83D < 0xFF61
  EXPECT_FALSE(utf16_less(halfwidth, emoji));
  EXPECT_TRUE(utf16_less("a", "b"));
  EXPECT_TRUE(utf16_less("a", "ab"));
  EXPECT_TRUE(utf16_less("Z", "a"));
  EXPECT_FALSE(utf16_less("a", "a"));
  EXPECT_EQ(to_utf16(emoji), (std::u16string{char16_t(0xD83D), char16_t(0xDE00)}));
  EXPECT_EQ(to_utf16("\xFF"), std::u16string(1, char16_t(0xFFFD)));
}

TEST_F(WorkspaceSync, ManifestSortsDirsByUtf16AndHashesFiles) {
  ws_.mkdir("b", false);
  ws_.mkdir("\xEF\xBD\xA1", false);
  ws_.mkdir("\xF0\x9F\x98\x80", false);
  ws_.mkdir("a/z", true);
  ws_.write("a/f.txt", "hello world");
  ws_.write("top", "a");
  const Manifest m = ws_.manifest();
  EXPECT_EQ(m.dirs,
            (std::vector<std::string>{"/workspace/a", "/workspace/a/z", "/workspace/b",
                                      "/workspace/\xF0\x9F\x98\x80", "/workspace/\xEF\xBD\xA1"}));
  EXPECT_EQ(m.files, (FileHashes{{"/workspace/a/f.txt", "d58b3fa7acdacbb4"},
                                 {"/workspace/top", "e40c292c759b8e91"}}));
  EXPECT_EQ(ws_.file_hashes(), m.files);
}

TEST_F(WorkspaceSync, ChangesAgainstAPreviousMap) {
  ws_.write("keep", "1");
  ws_.write("edit", "2");
  ws_.write("gone", "3");
  const Changes first = ws_.changes({});
  EXPECT_EQ(first.created,
            (std::vector<std::string>{"/workspace/keep", "/workspace/edit", "/workspace/gone"}));
  EXPECT_TRUE(first.updated.empty());
  EXPECT_TRUE(first.deleted.empty());

  ws_.write("edit", "two");
  ws_.remove("gone", false, false);
  ws_.mkdir("d", false);  // directories are not tracked
  ws_.write("d/new", "n");
  ws_.write("keep", "1");  // rewritten with the same bytes: not an update
  const Changes second = ws_.changes(first.snapshot);
  EXPECT_EQ(second.created, (std::vector<std::string>{"/workspace/d/new"}));
  EXPECT_EQ(second.updated, (std::vector<std::string>{"/workspace/edit"}));
  EXPECT_EQ(second.deleted, (std::vector<std::string>{"/workspace/gone"}));
  EXPECT_EQ(second.snapshot, ws_.file_hashes());
}

TEST_F(WorkspaceSync, SerializeIsPreOrderWithNullDirs) {
  ws_.mkdir("d", false);
  ws_.write("d/f", "x");
  ws_.write("g", "y");
  const auto rows = ws_.serialize();
  EXPECT_EQ(paths_of(rows),
            (std::vector<std::string>{"/workspace/d", "/workspace/d/f", "/workspace/g"}));
  EXPECT_FALSE(rows[0].data.has_value());
  EXPECT_EQ(rows[0].updated_at, 0);
  EXPECT_EQ(*rows[1].data, bytes_of("x"));
  EXPECT_EQ(rows[1].updated_at, 5'000);
}

TEST_F(WorkspaceSync, RollbackThroughSerializeKeepsRootIdentity) {
  ws_.mkdir("src", false);
  ws_.write("src/a.py", "a = 1");
  ws_.write("b.txt", "b");
  const auto root = ws_.root();
  const WorkspaceNode* root_address = root.get();
  const auto saved = ws_.serialize();
  const Manifest before = ws_.manifest();

  // A failed execution scribbles over the tree...
  clock_.advance(10);
  ws_.write("src/a.py", "a = 2");
  ws_.remove("b.txt", false, false);
  ws_.mkdir("junk/deep", true);
  ws_.write("junk/deep/x", "x");

  // ...and is rolled back in place.
  ws_.restore_from(saved);
  EXPECT_EQ(ws_.root().get(), root_address);
  EXPECT_EQ(ws_.manifest().dirs, before.dirs);
  EXPECT_EQ(ws_.manifest().files, before.files);
  EXPECT_EQ(child_names(*root), (std::vector<std::string>{"src", "b.txt"}));
  EXPECT_EQ(ws_.stat("src/a.py").updated_at, 5'000);
}

TEST_F(WorkspaceSync, RestoreFromToleratesLooseRows) {
  std::vector<WorkspaceRow> rows;
  rows.push_back({"/workspace/a/b/file", bytes_of("f"), 7});  // parents created
  rows.push_back({"/workspace/a", std::nullopt, 0});          // existing dir kept
  rows.push_back({"plain/x", bytes_of("p"), 8});              // no "workspace" prefix
  rows.push_back({"/workspace/e", std::nullopt, 0});
  rows.push_back({"/workspace", std::nullopt, 0});           // the root itself: skipped
  rows.push_back({"/workspace/../evil", bytes_of("e"), 1});  // dot segments: skipped
  ws_.restore_from(rows);
  EXPECT_EQ(paths_of(ws_.serialize()),
            (std::vector<std::string>{"/workspace/a", "/workspace/a/b", "/workspace/a/b/file",
                                      "/workspace/plain", "/workspace/plain/x", "/workspace/e"}));
  EXPECT_EQ(ws_.stat("a/b/file").updated_at, 7);
  EXPECT_EQ(ws_.stats().entries, 6u);
  EXPECT_EQ(ws_.stats().bytes, 2u);
}

TEST_F(WorkspaceSync, ManifestFormReconcilesAndReportsMissing) {
  // Current mirror: stale file, extra file, extra directory tree, a file where a dir belongs.
  ws_.mkdir("old/deeper", true);
  ws_.write("old/deeper/x", "x");
  ws_.write("extra.txt", "extra");
  ws_.write("stale.txt", "v1");
  ws_.write("same.txt", "same");
  ws_.write("pkg", "was a file");

  SyncRequest req;
  req.dirs = {"/workspace/pkg", "/workspace/pkg/sub"};
  req.files = {{"/workspace/pkg/sub/mod.py", bytes_of("m"), 42}};
  req.manifest = FileHashes{{"/workspace/same.txt", hash_of("same")},
                            {"/workspace/stale.txt", hash_of("v2")},
                            {"/workspace/pkg/sub/mod.py", hash_of("m")},
                            {"/workspace/absent.txt", hash_of("absent")}};
  const auto root = ws_.root();
  const auto missing = ws_.apply_sync(req);

  EXPECT_EQ(ws_.root(), root);
  EXPECT_EQ(missing, (std::vector<std::string>{"/workspace/absent.txt", "/workspace/stale.txt"}));
  const Manifest m = ws_.manifest();
  EXPECT_EQ(m.dirs, req.dirs);
  EXPECT_EQ(m.files, (FileHashes{{"/workspace/pkg/sub/mod.py", hash_of("m")},
                                 {"/workspace/same.txt", hash_of("same")},
                                 {"/workspace/stale.txt", hash_of("v1")}}));
  EXPECT_EQ(ws_.stat("pkg/sub/mod.py").updated_at, 42);  // given updatedAt kept
  // "pkg" was replaced in place: still the last child it was.
  EXPECT_EQ(child_names(*root), (std::vector<std::string>{"stale.txt", "same.txt", "pkg"}));

  // A follow-up sync with the pulled files leaves nothing missing.
  SyncRequest pull;
  pull.dirs = req.dirs;
  pull.files = {{"/workspace/stale.txt", bytes_of("v2"), 43},
                {"/workspace/absent.txt", bytes_of("absent"), 44}};
  pull.manifest = req.manifest;
  EXPECT_TRUE(ws_.apply_sync(pull).empty());
  EXPECT_EQ(ws_.file_hashes(), *req.manifest);
}

TEST_F(WorkspaceSync, EmptyManifestWipesTheMirror) {
  ws_.mkdir("a/b", true);
  ws_.write("a/b/c", "x");
  ws_.write("d", "y");
  SyncRequest req;
  req.manifest = FileHashes{};
  EXPECT_TRUE(ws_.apply_sync(req).empty());
  EXPECT_EQ(ws_.stats().entries, 0u);
}

TEST_F(WorkspaceSync, DirectoriesRemovedDeepestFirst) {
  // Nested unwanted directories under a wanted one; removing the deeper ones first must not
  // disturb the kept parent, and wanted dirs survive even when empty.
  ws_.mkdir("keep/x/y/z", true);
  ws_.mkdir("keep/w", true);
  ws_.mkdir("gone/q", true);
  SyncRequest req;
  req.dirs = {"/workspace/keep", "/workspace/keep/w"};
  req.deleted = std::vector<std::string>{};
  EXPECT_TRUE(ws_.apply_sync(req).empty());
  EXPECT_EQ(ws_.manifest().dirs, req.dirs);
}

TEST_F(WorkspaceSync, DeletedFormRemovesListedPathsAndIgnoresBadOnes) {
  ws_.mkdir("d/e", true);
  ws_.write("d/e/f", "1");
  ws_.write("g", "2");
  ws_.write("h", "3");
  SyncRequest req;
  req.dirs = {"/workspace/d", "/workspace/d/e"};
  req.files = {{"/workspace/new.txt", bytes_of("new"), 9}};
  req.deleted = std::vector<std::string>{"/workspace/g",      "/tmp/outside", "",
                                         "/workspace/nope/x", "/workspace",   "/workspace/g/x",
                                         "/workspace/d/e/f"};
  EXPECT_TRUE(ws_.apply_sync(req).empty());
  EXPECT_EQ(paths_of(ws_.serialize()),
            (std::vector<std::string>{"/workspace/d", "/workspace/d/e", "/workspace/h",
                                      "/workspace/new.txt"}));
  EXPECT_EQ(ws_.read("new.txt").updated_at, 9);
}

TEST_F(WorkspaceSync, NeitherManifestNorDeletedKeepsFiles) {
  ws_.write("f", "x");
  ws_.mkdir("stray", false);
  SyncRequest req;
  EXPECT_TRUE(ws_.apply_sync(req).empty());
  EXPECT_TRUE(ws_.exists("f"));
  EXPECT_FALSE(ws_.exists("stray"));  // step 4 always applies
}

// A sync used to accept files past the limits (a 2 MiB file, 17 MiB in all); they hold now
// (Y6, WorkspaceLimits.ASync*), and a sync up to them is accepted.
TEST_F(WorkspaceSync, FileReplacesDirectoryUpToTheLimits) {
  ws_.mkdir("x/inner", true);
  SyncRequest req;
  req.dirs = {"/workspace/big"};
  req.files.push_back({"/workspace/x", std::vector<std::uint8_t>(kMaxFileBytes, 1), 1});
  for (int i = 0; i < 15; ++i) {
    req.files.push_back(
        {"/workspace/big/" + std::to_string(i), std::vector<std::uint8_t>(kMaxFileBytes, 2), 1});
  }
  ws_.apply_sync(req);
  EXPECT_EQ(ws_.stat("x").type, WorkspaceNode::Type::kFile);
  EXPECT_EQ(ws_.stats().bytes, kMaxTotalBytes);
}

TEST_F(WorkspaceSync, OutsidePathsAreRefused) {
  const auto expect_eacces = [&](SyncRequest req) {
    try {
      ws_.apply_sync(req);
      ADD_FAILURE() << "no error";
    } catch (const WorkspaceError& e) {
      EXPECT_EQ(e.code(), Errno::kEACCES);
    }
  };
  SyncRequest bad_dir;
  bad_dir.dirs = {"/etc"};
  expect_eacces(bad_dir);
  SyncRequest bad_file;
  bad_file.files = {{"/workspace/../x", bytes_of("x"), 1}};
  expect_eacces(bad_file);
}

TEST_F(WorkspaceSync, ApplySyncIgnoresTheDisabledFlag) {
  ws_.set_disabled(true);
  SyncRequest req;
  req.manifest = FileHashes{};
  req.files = {{"/workspace/f", bytes_of("x"), 1}};
  req.dirs = {};
  // Reconciling is the host's business, not a guest operation.
  EXPECT_TRUE(ws_.apply_sync(req).empty());
  EXPECT_EQ(ws_.stats().entries, 0u);
}

}  // namespace
}  // namespace sandbox
