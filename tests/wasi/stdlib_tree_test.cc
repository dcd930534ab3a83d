#include <fstream>

#include <gtest/gtest.h>

#include <sandbox/wasi.h>

#include "wasi_test_util.h"

namespace sandbox {
namespace {

using testing_wasi::make_stored_zip;

std::string data_of(const WorkspaceNode* node) {
  return node ? std::string(node->data.begin(), node->data.end()) : "<missing>";
}

TEST(StdlibTree, LoadsAStoredZip) {
  const auto zip = make_stored_zip({{"os.py", "import posix\n"},
                                    {"encodings/__init__.py", "# enc\n"},
                                    {"./encodings//utf_8.py", "x = 1\n"},
                                    {"empty/", ""}});
  const auto tree = StdlibTree::from_zip(zip);
  EXPECT_EQ(data_of(tree->find("os.py")), "import posix\n");
  EXPECT_EQ(data_of(tree->find("encodings/utf_8.py")), "x = 1\n");
  ASSERT_NE(tree->find("encodings"), nullptr);
  EXPECT_TRUE(tree->find("encodings")->is_dir());
  ASSERT_NE(tree->find("empty"), nullptr);
  EXPECT_TRUE(tree->find("empty")->is_dir());
  EXPECT_EQ(tree->find("missing.py"), nullptr);
  EXPECT_EQ(tree->file_count(), 3u);
  EXPECT_EQ(tree->total_bytes(), 13u + 6u + 6u);
}

TEST(StdlibTree, RejectsParentSegments) {
  const auto zip = make_stored_zip({{"a/../../etc/passwd", "x"}});
  try {
    StdlibTree::from_zip(zip);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Invalid archive path"), std::string::npos);
  }
}

TEST(StdlibTree, RejectsCompressedEntries) {
  const auto zip = make_stored_zip({{"a.py", "x"}}, 8);
  try {
    StdlibTree::from_zip(zip);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("compression method 8"), std::string::npos);
  }
}

TEST(StdlibTree, RejectsCorruptArchives) {
  auto zip = make_stored_zip({{"a.py", "hello"}});
  auto flipped = zip;
  flipped[30 + 4] ^= 1;  // a data byte of the first entry
  EXPECT_THROW(StdlibTree::from_zip(flipped), std::runtime_error);
  EXPECT_THROW(StdlibTree::from_zip(std::span(zip).first(zip.size() - 1)), std::runtime_error);
  const std::vector<std::uint8_t> junk(100, 0x41);
  EXPECT_THROW(StdlibTree::from_zip(junk), std::runtime_error);
  EXPECT_THROW(StdlibTree::from_zip({}), std::runtime_error);
  // A central directory offset past the end of the archive.
  auto bad_offset = zip;
  bad_offset[bad_offset.size() - 3] = 0x7f;
  EXPECT_THROW(StdlibTree::from_zip(bad_offset), std::runtime_error);
}

TEST(StdlibTree, RejectsAFileWhereADirectoryIsNeeded) {
  EXPECT_THROW(StdlibTree::from_zip(make_stored_zip({{"a", "x"}, {"a/b", "y"}})),
               std::runtime_error);
}

TEST(StdlibTree, LoadsADirectoryInNameOrder) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("stdlib_tree_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "pkg" / "sub");
  std::ofstream(dir / "b.py") << "b";
  std::ofstream(dir / "a.py") << "a";
  std::ofstream(dir / "pkg" / "sub" / "m.py") << "module";
  const auto tree = StdlibTree::from_directory(dir);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(tree->root()->children.size(), 3u);
  EXPECT_EQ(tree->root()->children[0].first, "a.py");
  EXPECT_EQ(tree->root()->children[1].first, "b.py");
  EXPECT_EQ(tree->root()->children[2].first, "pkg");
  EXPECT_EQ(data_of(tree->find("pkg/sub/m.py")), "module");
  EXPECT_THROW(StdlibTree::from_directory(dir / "missing"), std::runtime_error);
}

}  // namespace
}  // namespace sandbox
