// Successful operations (docs/protocol.md#workspace-operations), insertion order, limits, and
// normalization.
#include <functional>

#include <gtest/gtest.h>

#include "workspace/workspace_test_util.h"

namespace sandbox {
namespace {

using testing_ws::bytes_of;
using testing_ws::child_names;
using testing_ws::text_of;
using Type = WorkspaceNode::Type;

class WorkspaceOps : public ::testing::Test {
 protected:
  ManualClock clock_{1'000};
  Workspace ws_{clock_};
};

TEST(NormalizeWorkspacePath, ResolvesAgainstCwd) {
  struct Case {
    const char* path;
    const char* cwd;
    const char* absolute;
    std::vector<std::string> segments;
  };
  const Case cases[] = {
      {"/workspace", "/workspace", "/workspace", {}},
      {"/workspace/", "/workspace", "/workspace", {}},
      {".", "/workspace", "/workspace", {}},
      {"a/b", "/workspace", "/workspace/a/b", {"a", "b"}},
      {"a//./b/", "/workspace", "/workspace/a/b", {"a", "b"}},
      {"../c", "/workspace/a/b", "/workspace/a/c", {"a", "c"}},
      {"x", "/workspace/a", "/workspace/a/x", {"a", "x"}},
      {"/workspace/a/../b", "/workspace/zzz", "/workspace/b", {"b"}},
      {"//workspace//a", "/workspace", "/workspace/a", {"a"}},
      // Leaving and re-entering /workspace is fine: only the final form is checked.
      {"/tmp/../workspace/a", "/workspace", "/workspace/a", {"a"}},
      {"caf\xC3\xA9 \xF0\x9F\x98\x80",
       "/workspace",
       "/workspace/caf\xC3\xA9 \xF0\x9F\x98\x80",
       {"caf\xC3\xA9 \xF0\x9F\x98\x80"}},
      {"...", "/workspace", "/workspace/...", {"..."}},
  };
  for (const auto& c : cases) {
    const NormalizedPath n = normalize_workspace_path(c.path, c.cwd);
    EXPECT_EQ(n.absolute, c.absolute) << c.path;
    EXPECT_EQ(n.segments, c.segments) << c.path;
  }
}

TEST_F(WorkspaceOps, WriteThenReadText) {
  ws_.write("hello.txt", "h\xC3\xA9llo");
  const ReadResult r = ws_.read("/workspace/hello.txt");
  EXPECT_EQ(r.content, "h\xC3\xA9llo");
  EXPECT_EQ(r.size, 6u);
  EXPECT_EQ(r.encoding, Encoding::kUtf8);
  EXPECT_FALSE(r.is_binary);
  EXPECT_EQ(r.updated_at, 1'000);
}

TEST_F(WorkspaceOps, ReadIsLenientAndFlagsBinary) {
  ws_.write_bytes("bad.bin", bytes_of("a\xFF"
                                      "b"));
  ReadResult r = ws_.read("bad.bin");
  EXPECT_EQ(r.content,
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(r.size, 3u);
  EXPECT_TRUE(r.is_binary);

  ws_.write_bytes("nul.txt", std::vector<std::uint8_t>{'a', 0, 'b'});
  r = ws_.read("nul.txt");
  EXPECT_TRUE(r.is_binary);  // valid UTF-8, but has a NUL
  EXPECT_EQ(r.content, std::string("a\0b", 3));

  r = ws_.read("nul.txt", Encoding::kBase64);
  EXPECT_EQ(r.content, "YQBi");
  EXPECT_EQ(r.encoding, Encoding::kBase64);
  EXPECT_TRUE(r.is_binary);

  ws_.write("empty.txt", "");
  r = ws_.read("empty.txt");
  EXPECT_EQ(r.content, "");
  EXPECT_FALSE(r.is_binary);
}

TEST_F(WorkspaceOps, WriteBase64DecodesFirst) {
  ws_.write("b.bin", "AAEC/w==", Encoding::kBase64);
  const auto [data, updated_at] = ws_.read_bytes("b.bin");
  EXPECT_EQ(data, (std::vector<std::uint8_t>{0, 1, 2, 255}));
  EXPECT_EQ(updated_at, 1'000);
}

TEST_F(WorkspaceOps, ReplacingKeepsPositionAndRestampsTime) {
  ws_.write("a", "1");
  ws_.write("b", "2");
  ws_.write("c", "3");
  clock_.advance(5);
  ws_.write("a", "one");
  EXPECT_EQ(child_names(*ws_.root()), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(ws_.read("a").content, "one");
  EXPECT_EQ(ws_.stat("a").updated_at, 1'005);
  EXPECT_EQ(ws_.stat("b").updated_at, 1'000);
}

TEST_F(WorkspaceOps, DeleteAndReAddMovesToEnd) {
  ws_.write("a", "1");
  ws_.write("b", "2");
  ws_.write("c", "3");
  ws_.remove("a", false, false);
  ws_.write("a", "1");
  EXPECT_EQ(child_names(*ws_.root()), (std::vector<std::string>{"b", "c", "a"}));
}

TEST_F(WorkspaceOps, MkdirRecursiveAndNot) {
  ws_.mkdir("/workspace", false);  // root: no-op
  ws_.mkdir("a/b/c", true);
  ws_.mkdir("a/b/c", true);  // existing directories are fine
  ws_.mkdir("a/d", false);
  EXPECT_EQ(ws_.stat("a/b/c").type, Type::kDirectory);
  EXPECT_EQ(ws_.stat("a/d").type, Type::kDirectory);
  EXPECT_EQ(ws_.stats().entries, 4u);
}

TEST_F(WorkspaceOps, ListPreOrderInInsertionOrder) {
  ws_.mkdir("z", false);
  ws_.write("z/f2", "22");
  ws_.mkdir("z/sub", false);
  ws_.write("z/sub/f3", "333");
  ws_.write("a.txt", "1");
  clock_.advance(1);
  ws_.write("z/f1", "1");

  const auto flat = ws_.list("/workspace", false);
  ASSERT_EQ(flat.size(), 2u);
  EXPECT_EQ(flat[0].path, "/workspace/z");
  EXPECT_EQ(flat[0].type, Type::kDirectory);
  EXPECT_EQ(flat[0].size, 0u);
  EXPECT_EQ(flat[0].updated_at, 0);
  EXPECT_EQ(flat[1].path, "/workspace/a.txt");

  std::vector<std::string> paths;
  for (const auto& e : ws_.list("z", true)) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"/workspace/z/f2", "/workspace/z/sub",
                                             "/workspace/z/sub/f3", "/workspace/z/f1"}));
  const auto sub = ws_.list("z/sub/../sub", false);
  ASSERT_EQ(sub.size(), 1u);
  EXPECT_EQ(sub[0].path, "/workspace/z/sub/f3");
  EXPECT_EQ(sub[0].size, 3u);
  EXPECT_EQ(sub[0].updated_at, 1'000);
  EXPECT_TRUE(ws_.list("z/sub/../sub/f3/..", false).size() == 1u);
}

TEST_F(WorkspaceOps, DeleteVariants) {
  ws_.mkdir("d/e", true);
  ws_.write("d/e/f", "x");
  ws_.write("g", "y");
  ws_.remove("missing", false, true);      // force swallows a missing target
  ws_.remove("nope/deeper", false, true);  // and a missing parent
  ws_.remove("g", false, false);
  EXPECT_FALSE(ws_.exists("g"));
  ws_.remove("d", true, false);  // whole subtree
  EXPECT_FALSE(ws_.exists("d"));
  EXPECT_EQ(ws_.stats().entries, 0u);
}

TEST_F(WorkspaceOps, RenameKeepsIdentityAndTimestamp) {
  ws_.write("a.txt", "A");
  ws_.write("b.txt", "B");
  ws_.mkdir("dir", false);
  const auto node = ws_.root()->find("a.txt");
  clock_.advance(100);
  ws_.rename("a.txt", "dir/moved.txt");
  EXPECT_FALSE(ws_.exists("a.txt"));
  EXPECT_EQ(ws_.root()->find("dir")->find("moved.txt"), node);
  EXPECT_EQ(ws_.stat("dir/moved.txt").updated_at, 1'000);

  // Replacing an existing file: no EEXIST; the destination key keeps its position (Map.set).
  ws_.write("c.txt", "C");
  ws_.rename("dir/moved.txt", "b.txt");
  EXPECT_EQ(child_names(*ws_.root()), (std::vector<std::string>{"b.txt", "dir", "c.txt"}));
  EXPECT_EQ(ws_.read("b.txt").content, "A");

  // An empty directory destination is replaced by a directory.
  ws_.mkdir("d1", false);
  ws_.write("d1/x", "x");
  ws_.mkdir("d2", false);
  ws_.rename("d1", "d2");
  EXPECT_EQ(ws_.read("d2/x").content, "x");
  EXPECT_FALSE(ws_.exists("d1"));

  // Renaming a file onto itself moves it to the end (JS Map delete + set).
  ws_.rename("c.txt", "./c.txt");
  EXPECT_EQ(child_names(*ws_.root()).back(), "c.txt");
}

TEST_F(WorkspaceOps, ExistsNeverThrows) {
  ws_.write("f", "x");
  EXPECT_TRUE(ws_.exists("/workspace"));
  EXPECT_TRUE(ws_.exists("f"));
  EXPECT_FALSE(ws_.exists("g"));
  EXPECT_FALSE(ws_.exists(""));
  EXPECT_FALSE(ws_.exists("/etc/passwd"));
  EXPECT_FALSE(ws_.exists("f/child"));  // ENOTDIR inside answers false
}

TEST_F(WorkspaceOps, StatFilesAndDirectories) {
  ws_.write("f", "xyz");
  const StatResult f = ws_.stat("f");
  EXPECT_EQ(f.type, Type::kFile);
  EXPECT_EQ(f.size, 3u);
  EXPECT_EQ(f.updated_at, 1'000);
  const StatResult root = ws_.stat("/workspace");
  EXPECT_EQ(root.type, Type::kDirectory);
  EXPECT_EQ(root.size, 0u);
  EXPECT_EQ(root.updated_at, 0);
}

TEST_F(WorkspaceOps, RelativePathsUseCwd) {
  ws_.mkdir("proj", false);
  ws_.write("main.py", "print(1)", Encoding::kUtf8, "/workspace/proj");
  EXPECT_TRUE(ws_.exists("/workspace/proj/main.py"));
  EXPECT_EQ(ws_.read("../proj/main.py", Encoding::kUtf8, "/workspace/proj").content, "print(1)");
  ws_.rename("main.py", "app.py", "/workspace/proj");
  EXPECT_TRUE(ws_.exists("proj/app.py"));
}

TEST_F(WorkspaceOps, FileSizeLimitIsInclusive) {
  ws_.write("max", std::string(kMaxFileBytes, 'm'));
  EXPECT_EQ(ws_.stat("max").size, kMaxFileBytes);
}

TEST_F(WorkspaceOps, TotalBytesLimit) {
  const std::string mib(kMaxFileBytes, 'x');
  for (int i = 0; i < 16; ++i) ws_.write("f" + std::to_string(i), mib);
  EXPECT_EQ(ws_.stats().bytes, kMaxTotalBytes);
  try {
    ws_.write("one_more", "y");
    FAIL();
  } catch (const WorkspaceError& e) {
    EXPECT_EQ(e.code(), Errno::kENOSPC);
    EXPECT_STREQ(e.what(), "Workspace exceeds 16 MiB total");
  }
  // Replacing counts the old size out: same size is fine, one byte more is not.
  ws_.write("f0", std::string(kMaxFileBytes, 'z'));
  ws_.write("f1", "small");
  ws_.write("extra", std::string(kMaxFileBytes - 5, 'e'));
  EXPECT_EQ(ws_.stats().bytes, kMaxTotalBytes);
  EXPECT_THROW(ws_.write("f1", std::string(6, 's')), WorkspaceError);
  ws_.write("f1", "SMALL");
  // An empty file still fits.
  ws_.write("empty", "");
}

TEST_F(WorkspaceOps, EntryLimit) {
  ws_.mkdir("d", false);
  for (std::uint64_t i = 1; i < kMaxWorkspaceEntries; ++i) ws_.write("d/" + std::to_string(i), "");
  EXPECT_EQ(ws_.stats().entries, kMaxWorkspaceEntries);
  const auto expect_enospc = [](const std::function<void()>& op) {
    try {
      op();
      ADD_FAILURE() << "no error";
    } catch (const WorkspaceError& e) {
      EXPECT_EQ(e.code(), Errno::kENOSPC);
      EXPECT_STREQ(e.what(), "Workspace exceeds 4096 entries");
    }
  };
  expect_enospc([&] { ws_.write("new", "x"); });
  expect_enospc([&] { ws_.mkdir("new", false); });
  expect_enospc([&] { ws_.mkdir("new/deeper", true); });
  ws_.write("d/1", "replacing an existing file is allowed");
  ws_.mkdir("d", true);  // nothing to create
  ws_.remove("d/1", false, false);
  expect_enospc([&] { ws_.mkdir("x/y", true); });  // one free slot: x fits, y does not
  EXPECT_TRUE(ws_.exists("x"));
}

TEST_F(WorkspaceOps, MkdirRecursiveChecksCountPerDirectory) {
  ws_.mkdir("d", false);
  for (std::uint64_t i = 2; i < kMaxWorkspaceEntries; ++i) ws_.write("d/" + std::to_string(i), "");
  ASSERT_EQ(ws_.stats().entries, kMaxWorkspaceEntries - 1);
  try {
    ws_.mkdir("x/y", true);
    FAIL();
  } catch (const WorkspaceError& e) {
    EXPECT_EQ(e.code(), Errno::kENOSPC);
  }
  // The first segment was created before the limit hit (no rollback, as upstream).
  EXPECT_TRUE(ws_.exists("x"));
  EXPECT_FALSE(ws_.exists("x/y"));
}

}  // namespace
}  // namespace sandbox
