// Every failing operation of docs/protocol.md#workspace-operations, as a table: the errno and the
// exact message.
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "workspace/workspace_test_util.h"

namespace sandbox {
namespace {

using testing_ws::bytes_of;

struct ErrorCase {
  const char* name;
  std::function<void(Workspace&)> op;
  Errno code;
  std::string message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

// /workspace/dir/f.txt, /workspace/file.txt, /workspace/empty/
void populate(Workspace& ws) {
  ws.mkdir("dir", false);
  ws.write("dir/f.txt", "hello");
  ws.write("file.txt", "x");
  ws.mkdir("empty", false);
}

const std::string kBig(kMaxFileBytes + 1, 'b');

const ErrorCase kCases[] = {
    // Path normalization (docs/protocol.md#path-normalization), through read.
    {"empty_path", [](Workspace& w) { w.read(""); }, Errno::kENOENT, "Path is required"},
    {"outside_absolute", [](Workspace& w) { w.read("/tmp/x"); }, Errno::kEACCES,
     "Path escapes /workspace: /tmp/x"},
    {"prefix_lookalike", [](Workspace& w) { w.read("/workspacex/a"); }, Errno::kEACCES,
     "Path escapes /workspace: /workspacex/a"},
    {"dotdot_above_root", [](Workspace& w) { w.read("/.."); }, Errno::kEACCES,
     "Path escapes /workspace: /.."},
    {"relative_escape", [](Workspace& w) { w.read("../etc/passwd"); }, Errno::kEACCES,
     "Path escapes /workspace: ../etc/passwd"},
    {"bare_slash", [](Workspace& w) { w.stat("/"); }, Errno::kEACCES, "Path escapes /workspace: /"},
    // read / read_bytes
    {"read_missing", [](Workspace& w) { w.read("missing"); }, Errno::kENOENT,
     "No such file: missing"},
    {"read_dir", [](Workspace& w) { w.read("dir"); }, Errno::kEISDIR, "Is a directory: dir"},
    {"read_root", [](Workspace& w) { w.read("/workspace"); }, Errno::kEISDIR,
     "Is a directory: /workspace"},
    {"read_through_file", [](Workspace& w) { w.read("file.txt/x"); }, Errno::kENOTDIR,
     "Not a directory"},
    {"read_bytes_missing", [](Workspace& w) { w.read_bytes("/workspace/nope"); }, Errno::kENOENT,
     "No such file: /workspace/nope"},
    {"read_bytes_dir", [](Workspace& w) { w.read_bytes("empty"); }, Errno::kEISDIR,
     "Is a directory: empty"},
    // write
    {"write_root", [](Workspace& w) { w.write("/workspace/", "x"); }, Errno::kEISDIR,
     "Cannot write to the /workspace root"},
    {"write_bad_base64", [](Workspace& w) { w.write("b.bin", "!!!!", Encoding::kBase64); },
     Errno::kEINVAL, "Invalid base64 content"},
    {"write_too_big", [](Workspace& w) { w.write("big", kBig); }, Errno::kEFBIG,
     "File exceeds 1048576 bytes"},
    // Size is checked before the parent.
    {"write_too_big_missing_parent", [](Workspace& w) { w.write("nope/big", kBig); }, Errno::kEFBIG,
     "File exceeds 1048576 bytes"},
    {"write_missing_parent", [](Workspace& w) { w.write("nope/a.txt", "x"); }, Errno::kENOENT,
     "No such file or directory"},
    {"write_parent_is_file", [](Workspace& w) { w.write("file.txt/a", "x"); }, Errno::kENOTDIR,
     "Not a directory"},
    {"write_onto_dir", [](Workspace& w) { w.write("dir", "x"); }, Errno::kEISDIR,
     "Is a directory: dir"},
    {"write_bytes_root", [](Workspace& w) { w.write_bytes(".", bytes_of("x")); }, Errno::kEISDIR,
     "Cannot write to the /workspace root"},
    // mkdir
    {"mkdir_exists_dir", [](Workspace& w) { w.mkdir("dir", false); }, Errno::kEEXIST,
     "Already exists: dir"},
    {"mkdir_exists_file", [](Workspace& w) { w.mkdir("file.txt", false); }, Errno::kEEXIST,
     "Already exists: file.txt"},
    {"mkdir_missing_parent", [](Workspace& w) { w.mkdir("nope/x", false); }, Errno::kENOENT,
     "No such file or directory"},
    {"mkdir_parent_is_file", [](Workspace& w) { w.mkdir("file.txt/x", false); }, Errno::kENOTDIR,
     "Not a directory"},
    {"mkdir_recursive_through_file", [](Workspace& w) { w.mkdir("file.txt/x/y", true); },
     Errno::kENOTDIR, "Not a directory"},
    {"mkdir_recursive_onto_file", [](Workspace& w) { w.mkdir("dir/f.txt", true); }, Errno::kENOTDIR,
     "Not a directory"},
    // list
    {"list_missing", [](Workspace& w) { w.list("missing", false); }, Errno::kENOENT,
     "No such directory: missing"},
    {"list_file", [](Workspace& w) { w.list("file.txt", true); }, Errno::kENOTDIR,
     "Not a directory: file.txt"},
    {"list_through_file", [](Workspace& w) { w.list("file.txt/x", false); }, Errno::kENOTDIR,
     "Not a directory"},
    // delete
    {"delete_root", [](Workspace& w) { w.remove("/workspace", true, true); }, Errno::kEACCES,
     "Cannot delete the /workspace root"},
    {"delete_missing", [](Workspace& w) { w.remove("missing", false, false); }, Errno::kENOENT,
     "No such file or directory: missing"},
    {"delete_missing_parent", [](Workspace& w) { w.remove("nope/x", true, false); }, Errno::kENOENT,
     "No such file or directory"},
    {"delete_through_file_even_forced", [](Workspace& w) { w.remove("file.txt/x", true, true); },
     Errno::kENOTDIR, "Not a directory"},
    {"delete_empty_dir_not_recursive", [](Workspace& w) { w.remove("empty", false, true); },
     Errno::kEISDIR,
     "Cannot delete directory with deleteFile() at 'empty'. Pass { recursive: true } to delete a "
     "directory."},
    // rename
    {"rename_root", [](Workspace& w) { w.rename("/workspace", "x"); }, Errno::kEACCES,
     "Cannot rename the /workspace root"},
    {"rename_onto_root", [](Workspace& w) { w.rename("file.txt", "."); }, Errno::kEACCES,
     "Cannot rename onto the /workspace root"},
    {"rename_destination_escapes", [](Workspace& w) { w.rename("/workspace", "/tmp"); },
     Errno::kEACCES, "Path escapes /workspace: /tmp"},
    {"rename_missing", [](Workspace& w) { w.rename("missing", "x"); }, Errno::kENOENT,
     "No such file or directory: missing"},
    {"rename_source_parent_missing", [](Workspace& w) { w.rename("nope/a", "x"); }, Errno::kENOENT,
     "No such file or directory"},
    {"rename_source_through_file", [](Workspace& w) { w.rename("file.txt/a", "x"); },
     Errno::kENOTDIR, "Not a directory"},
    {"rename_destination_parent_missing", [](Workspace& w) { w.rename("file.txt", "nope/x"); },
     Errno::kENOENT, "No such file or directory"},
    {"rename_dir_onto_file", [](Workspace& w) { w.rename("empty", "file.txt"); }, Errno::kENOTDIR,
     "Not a directory: file.txt"},
    {"rename_file_onto_dir", [](Workspace& w) { w.rename("file.txt", "empty"); }, Errno::kEISDIR,
     "Is a directory: empty"},
    {"rename_onto_non_empty_dir", [](Workspace& w) { w.rename("empty", "dir"); }, Errno::kENOTEMPTY,
     "Directory not empty: dir"},
    {"rename_non_empty_dir_onto_itself", [](Workspace& w) { w.rename("dir", "dir"); },
     Errno::kENOTEMPTY, "Directory not empty: dir"},
    {"rename_into_own_subtree", [](Workspace& w) { w.rename("dir", "dir/sub"); }, Errno::kEINVAL,
     "Cannot move a directory into itself: dir/sub"},
    // stat
    {"stat_missing", [](Workspace& w) { w.stat("missing"); }, Errno::kENOENT,
     "No such file or directory: missing"},
    {"stat_through_file", [](Workspace& w) { w.stat("file.txt/x"); }, Errno::kENOTDIR,
     "Not a directory"},
};

class WorkspaceErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(WorkspaceErrors, FailsWithErrnoAndMessageAndLeavesTreeUnchanged) {
  ManualClock clock;
  Workspace ws(clock);
  populate(ws);
  const auto before = ws.serialize();
  const ErrorCase& c = GetParam();
  try {
    c.op(ws);
    FAIL() << "no error";
  } catch (const WorkspaceError& e) {
    EXPECT_EQ(errno_name(e.code()), errno_name(c.code));
    EXPECT_EQ(std::string(e.what()), c.message);
  }
  const auto after = ws.serialize();
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].path, after[i].path);
    EXPECT_EQ(before[i].data, after[i].data);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, WorkspaceErrors, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(WorkspaceErrors, FileTooLargeCarriesSizes) {
  ManualClock clock;
  Workspace ws(clock);
  try {
    ws.write("big", kBig);
    FAIL();
  } catch (const WorkspaceError& e) {
    EXPECT_EQ(e.code(), Errno::kEFBIG);
    EXPECT_EQ(e.details().at("maxSize").to_number<std::uint64_t>(), kMaxFileBytes);
    EXPECT_EQ(e.details().at("actualSize").to_number<std::uint64_t>(), kMaxFileBytes + 1);
  }
}

// docs/protocol.md#disabled-workspace: while disabled, every operation but exists() is EACCES with
// the fixed message, even ones that would otherwise fail differently (or succeed).
TEST(WorkspaceErrors, DisabledRefusesEveryOperation) {
  ManualClock clock;
  Workspace ws(clock);
  populate(ws);
  ws.set_disabled(true);
  const std::function<void()> ops[] = {
      [&] { ws.read("file.txt"); },
      [&] { ws.read("missing", Encoding::kBase64); },
      [&] { ws.read_bytes("file.txt"); },
      [&] { ws.write("new.txt", "x"); },
      [&] { ws.write("new.txt", "!!", Encoding::kBase64); },
      [&] { ws.write_bytes("new.txt", bytes_of("x")); },
      [&] { ws.mkdir("d2", false); },
      [&] { ws.mkdir("/workspace", true); },
      [&] { ws.list("/workspace", true); },
      [&] { ws.remove("file.txt", false, false); },
      [&] { ws.remove("missing", false, true); },
      [&] { ws.rename("file.txt", "moved.txt"); },
      [&] { ws.stat("/workspace"); },
      [&] { ws.read("/tmp/x"); },
  };
  for (const auto& op : ops) {
    try {
      op();
      ADD_FAILURE() << "no error";
    } catch (const WorkspaceError& e) {
      EXPECT_EQ(e.code(), Errno::kEACCES);
      EXPECT_STREQ(e.what(), "File API is disabled for this sandbox");
    }
  }
  EXPECT_FALSE(ws.exists("file.txt"));
  EXPECT_FALSE(ws.exists("/workspace"));
  // The tree is untouched, and host-side views still work.
  EXPECT_EQ(ws.manifest().files.size(), 2u);
  ws.set_disabled(false);
  EXPECT_TRUE(ws.exists("file.txt"));
  EXPECT_EQ(ws.read("file.txt").content, "x");
}

TEST(WorkspaceErrors, ErrnoNames) {
  EXPECT_EQ(errno_name(Errno::kENOENT), "ENOENT");
  EXPECT_EQ(errno_name(Errno::kEEXIST), "EEXIST");
  EXPECT_EQ(errno_name(Errno::kEACCES), "EACCES");
  EXPECT_EQ(errno_name(Errno::kEISDIR), "EISDIR");
  EXPECT_EQ(errno_name(Errno::kENOTDIR), "ENOTDIR");
  EXPECT_EQ(errno_name(Errno::kEFBIG), "EFBIG");
  EXPECT_EQ(errno_name(Errno::kENOSPC), "ENOSPC");
  EXPECT_EQ(errno_name(Errno::kENOTEMPTY), "ENOTEMPTY");
  EXPECT_EQ(errno_name(Errno::kEINVAL), "EINVAL");
  EXPECT_EQ(errno_name(Errno::kENAMETOOLONG), "ENAMETOOLONG");
}

}  // namespace
}  // namespace sandbox
