// Files and directories: the three mounts, descriptors, path resolution.
#include <gtest/gtest.h>

#include "wasi_test_util.h"

namespace sandbox {
namespace {

using testing_wasi::FakeGuest;
using testing_wasi::make_stored_zip;
using namespace sandbox::wasi;

constexpr std::uint32_t kStdlibFd = 3;
constexpr std::uint32_t kDevFd = 4;
constexpr std::uint32_t kWorkspaceFd = 5;

class WasiFs : public ::testing::Test {
 protected:
  WasiFs()
      : ws_(clock_),
        g_(WasiOptions{.stdlib = StdlibTree::from_zip(make_stored_zip(
                           {{"os.py", "import posix\n"}, {"pkg/mod.py", "VALUE = 1\n"}})),
                       .workspace = &ws_}) {}
  ManualClock clock_{1'700'000'000'000};
  Workspace ws_;
  FakeGuest g_;
};

TEST_F(WasiFs, ReadsTheStdlibTree) {
  auto [err, fd] = g_.open(kStdlibFd, "pkg/mod.py");
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(fd, 6u);
  EXPECT_EQ(g_.read(fd, 3).second, "VAL");
  EXPECT_EQ(g_.read(fd).second, "UE = 1\n");
  EXPECT_EQ(g_.read(fd).second, "");
  auto [serr, st] = g_.stat(kStdlibFd, "os.py");
  ASSERT_EQ(serr, 0u);
  EXPECT_EQ(g_.u8(st + 16), kFiletypeRegularFile);
  EXPECT_EQ(g_.u64(st + 32), 13u);
  auto [derr, dst] = g_.stat(kStdlibFd, "pkg");
  ASSERT_EQ(derr, 0u);
  EXPECT_EQ(g_.u8(dst + 16), kFiletypeDirectory);
  EXPECT_EQ(g_.stat(kStdlibFd, "nope.py").first, kENoent);
  EXPECT_EQ(g_.stat(kStdlibFd, "os.py/").first, kENotdir);
  EXPECT_EQ(g_.readdir(kStdlibFd).second, (std::vector<std::string>{".", "..", "os.py", "pkg"}));
}

TEST_F(WasiFs, TheStdlibIsReadOnly) {
  EXPECT_EQ(g_.open(kStdlibFd, "os.py", 0, /*write=*/true).first, kEPerm);
  EXPECT_EQ(g_.open(kStdlibFd, "os.py", kOflagTrunc).first, kEPerm);
  EXPECT_EQ(g_.open(kStdlibFd, "new.py", kOflagCreat, true).first, kEPerm);
  EXPECT_EQ(g_.mkdir(kStdlibFd, "d"), kEPerm);
  EXPECT_EQ(g_.unlink(kStdlibFd, "os.py"), kEPerm);
  EXPECT_EQ(g_.rmdir(kStdlibFd, "pkg"), kEPerm);
  EXPECT_EQ(g_.rename(kStdlibFd, "os.py", kStdlibFd, "x.py"), kEPerm);
  EXPECT_EQ(g_.rename(kWorkspaceFd, "a", kStdlibFd, "x.py"), kEPerm);
  auto [err, fd] = g_.open(kStdlibFd, "os.py");
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(g_.write(fd, {"x"}).first, kEBadf);
  EXPECT_TRUE(g_.host().has_open_guest_fds());
}

TEST_F(WasiFs, DevNullReadsNothingAndSwallowsWrites) {
  auto [err, fd] = g_.open(kDevFd, "null", kOflagCreat | kOflagTrunc, true);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(g_.write(fd, {"discarded"}), (std::pair<std::uint32_t, std::uint32_t>{0, 9}));
  EXPECT_EQ(g_.read(fd).second, "");
  EXPECT_EQ(g_.readdir(kDevFd).second, (std::vector<std::string>{".", "..", "null"}));
  EXPECT_EQ(g_.open(kDevFd, "zero").first, kENoent);
  EXPECT_EQ(g_.open(kDevFd, "zero", kOflagCreat, true).first, kEPerm);
}

TEST_F(WasiFs, GuestWritesLandInTheWorkspaceTree) {
  ASSERT_EQ(g_.mkdir(kWorkspaceFd, "data"), 0u);
  auto [err, fd] = g_.open(kWorkspaceFd, "data/out.txt", kOflagCreat | kOflagTrunc, true);
  ASSERT_EQ(err, 0u);
  clock_.advance(5);
  EXPECT_EQ(g_.write(fd, {"hello ", "world\n"}).second, 12u);
  EXPECT_EQ(ws_.read("/workspace/data/out.txt").content, "hello world\n");
  EXPECT_EQ(ws_.stat("/workspace/data/out.txt").updated_at, 1'700'000'000'005);
  // The fd keeps its position; appending via O_APPEND goes to the end.
  EXPECT_EQ(g_.write(fd, {"more"}).first, 0u);
  EXPECT_EQ(ws_.read("/workspace/data/out.txt").content, "hello world\nmore");
  auto [aerr, afd] = g_.open(kWorkspaceFd, "data/out.txt", 0, true, kFdflagAppend);
  ASSERT_EQ(aerr, 0u);
  EXPECT_EQ(g_.write(afd, {"!"}).first, 0u);
  EXPECT_EQ(ws_.read("/workspace/data/out.txt").content, "hello world\nmore!");
  // A file written through the API is visible to the guest.
  ws_.write("/workspace/data/in.txt", "from host");
  auto [rerr, rfd] = g_.open(kWorkspaceFd, "data/in.txt");
  ASSERT_EQ(rerr, 0u);
  EXPECT_EQ(g_.read(rfd).second, "from host");
  // Truncation.
  auto [terr, tfd] = g_.open(kWorkspaceFd, "data/in.txt", kOflagTrunc, true);
  ASSERT_EQ(terr, 0u);
  EXPECT_EQ(ws_.read("/workspace/data/in.txt").content, "");
  (void)tfd;
}

// The workspace keeps each file's content hash until its bytes change (WorkspaceNode::data_hash):
// a guest's write in place, of the same size, and a truncation both count as changes.
TEST_F(WasiFs, WritesInPlaceAndTruncationsChangeTheFileHash) {
  ws_.write("/workspace/f.txt", "abcd");
  const FileHashes before = ws_.file_hashes();
  auto [err, fd] = g_.open(kWorkspaceFd, "f.txt", 0, true);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(g_.write(fd, {"x"}).first, 0u);
  EXPECT_EQ(ws_.read("/workspace/f.txt").content, "xbcd");
  const Changes written = ws_.changes(before);
  EXPECT_EQ(written.updated, std::vector<std::string>{"/workspace/f.txt"});
  auto [terr, tfd] = g_.open(kWorkspaceFd, "f.txt", kOflagTrunc, true);
  ASSERT_EQ(terr, 0u);
  (void)tfd;
  EXPECT_NE(ws_.file_hashes().at("/workspace/f.txt"), written.snapshot.at("/workspace/f.txt"));
  EXPECT_EQ(ws_.file_hashes().at("/workspace/f.txt"), content_hash({}));
}

TEST_F(WasiFs, SeekTellAndPread) {
  ws_.write("/workspace/f", "0123456789");
  auto [err, fd] = g_.open(kWorkspaceFd, "f");
  ASSERT_EQ(err, 0u);
  const std::uint32_t out = g_.alloc(8);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_seek(g_.ctx(), fd, 4, kWhenceSet, out), 0u);
  EXPECT_EQ(g_.u64(out), 4u);
  EXPECT_EQ(g_.read(fd, 2).second, "45");
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_seek(g_.ctx(), fd, static_cast<std::uint64_t>(-3),
                                              kWhenceEnd, out),
            0u);
  EXPECT_EQ(g_.u64(out), 7u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_tell(g_.ctx(), fd, out), 0u);
  EXPECT_EQ(g_.u64(out), 7u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_seek(g_.ctx(), fd, static_cast<std::uint64_t>(-8),
                                              kWhenceCur, out),
            kEInval);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_seek(g_.ctx(), fd, 0, 9, out), kEInval);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_seek(g_.ctx(), 1, 0, kWhenceCur, out), kESpipe);
  // pread does not move the position.
  const std::uint32_t buf = g_.alloc(4);
  const std::uint32_t iov = g_.alloc(8);
  const std::uint32_t len = 4;
  std::memcpy(g_.memory().data + iov, &buf, 4);
  std::memcpy(g_.memory().data + iov + 4, &len, 4);
  const std::uint32_t n = g_.alloc(4);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_pread(g_.ctx(), fd, iov, 1, 1, n), 0u);
  EXPECT_EQ(g_.str(buf, g_.u32(n)), "1234");
  EXPECT_EQ(g_.read(fd).second, "789");
}

TEST_F(WasiFs, WritingPastTheEndZeroFills) {
  auto [err, fd] = g_.open(kWorkspaceFd, "sparse", kOflagCreat, true);
  ASSERT_EQ(err, 0u);
  const std::uint32_t out = g_.alloc(8);
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_seek(g_.ctx(), fd, 3, kWhenceSet, out), 0u);
  EXPECT_EQ(g_.write(fd, {"x"}).first, 0u);
  EXPECT_EQ(ws_.read_bytes("/workspace/sparse").first, (std::vector<std::uint8_t>{0, 0, 0, 'x'}));
}

TEST_F(WasiFs, DirectoryOperations) {
  ASSERT_EQ(g_.mkdir(kWorkspaceFd, "a"), 0u);
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, "a"), kEExist);
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, "missing/b"), kENoent);
  ws_.write("/workspace/a/f.txt", "x");
  EXPECT_EQ(g_.mkdir(kWorkspaceFd, "a/f.txt/c"), kENotdir);
  EXPECT_EQ(g_.rmdir(kWorkspaceFd, "a"), kENotempty);
  EXPECT_EQ(g_.rmdir(kWorkspaceFd, "a/f.txt"), kENotdir);
  EXPECT_EQ(g_.unlink(kWorkspaceFd, "a"), kEIsdir);
  EXPECT_EQ(g_.unlink(kWorkspaceFd, "a/nope"), kENoent);
  EXPECT_EQ(g_.rmdir(kWorkspaceFd, "."), kEBusy);
  ASSERT_EQ(g_.unlink(kWorkspaceFd, "a/f.txt"), 0u);
  EXPECT_FALSE(ws_.exists("/workspace/a/f.txt"));
  ASSERT_EQ(g_.rmdir(kWorkspaceFd, "a"), 0u);
  EXPECT_FALSE(ws_.exists("/workspace/a"));
}

TEST_F(WasiFs, RenameMovesNodesAndChecksTypes) {
  ws_.mkdir("/workspace/d", false);
  ws_.mkdir("/workspace/d/sub", false);
  ws_.write("/workspace/f", "F");
  ws_.write("/workspace/g", "G");
  const auto updated = ws_.stat("/workspace/f").updated_at;
  clock_.advance(1000);
  EXPECT_EQ(g_.rename(kWorkspaceFd, "nope", kWorkspaceFd, "x"), kENoent);
  EXPECT_EQ(g_.rename(kWorkspaceFd, "f", kWorkspaceFd, "d"), kEIsdir);
  EXPECT_EQ(g_.rename(kWorkspaceFd, "d", kWorkspaceFd, "f"), kENotdir);
  EXPECT_EQ(g_.rename(kWorkspaceFd, "d", kWorkspaceFd, "d/sub/inner"), kEInval);
  ws_.mkdir("/workspace/full", false);
  ws_.write("/workspace/full/x", "x");
  EXPECT_EQ(g_.rename(kWorkspaceFd, "d", kWorkspaceFd, "full"), kENotempty);
  ASSERT_EQ(g_.rename(kWorkspaceFd, "f", kWorkspaceFd, "g"), 0u);  // replaces g
  EXPECT_EQ(ws_.read("/workspace/g").content, "F");
  EXPECT_EQ(ws_.stat("/workspace/g").updated_at, updated);
  EXPECT_FALSE(ws_.exists("/workspace/f"));
  ASSERT_EQ(g_.rename(kWorkspaceFd, "d", kWorkspaceFd, "e"), 0u);
  EXPECT_TRUE(ws_.exists("/workspace/e/sub"));
  EXPECT_EQ(g_.rename(kWorkspaceFd, "g", kWorkspaceFd, "g"), 0u);
}

TEST_F(WasiFs, ReaddirListsDotEntriesThenInsertionOrder) {
  ws_.write("/workspace/zeta", "z");
  ws_.write("/workspace/alpha", "a");
  ws_.mkdir("/workspace/mid", false);
  EXPECT_EQ(g_.readdir(kWorkspaceFd).second,
            (std::vector<std::string>{".", "..", "zeta", "alpha", "mid"}));
  // A small buffer returns a prefix; the cookie resumes after the last complete entry.
  const std::uint32_t buf = g_.alloc(40);
  const std::uint32_t used = g_.alloc(4);
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_readdir(g_.ctx(), kWorkspaceFd, buf, 40, 3, used), 0u);
  EXPECT_EQ(g_.u32(used), 40u);  // full: "alpha" (29 bytes) + part of "mid"
  EXPECT_EQ(g_.u64(buf), 4u);    // d_next
  EXPECT_EQ(g_.str(buf + 24, 5), "alpha");
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_readdir(g_.ctx(), kWorkspaceFd, buf, 40, 5, used), 0u);
  EXPECT_EQ(g_.u32(used), 0u);
  auto [err, fd] = g_.open(kWorkspaceFd, "zeta");
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_readdir(g_.ctx(), fd, buf, 40, 0, used), kENotdir);
}

TEST_F(WasiFs, OpenChecksFlagsAgainstTheTarget) {
  ws_.mkdir("/workspace/d", false);
  ws_.write("/workspace/f", "x");
  EXPECT_EQ(g_.open(kWorkspaceFd, "f", kOflagCreat | kOflagExcl, true).first, kEExist);
  EXPECT_EQ(g_.open(kWorkspaceFd, "f", kOflagDirectory).first, kENotdir);
  EXPECT_EQ(g_.open(kWorkspaceFd, "f/").first, kENotdir);
  EXPECT_EQ(g_.open(kWorkspaceFd, "d", 0, true).first, kEIsdir);
  EXPECT_EQ(g_.open(kWorkspaceFd, "new/", kOflagCreat, true).first, kEIsdir);
  EXPECT_EQ(g_.open(kWorkspaceFd, "missing").first, kENoent);
  EXPECT_EQ(g_.open(kWorkspaceFd, "missing/x", kOflagCreat, true).first, kENoent);
  EXPECT_EQ(g_.open(kWorkspaceFd, "f/x", kOflagCreat, true).first, kENotdir);
  EXPECT_EQ(g_.open(kWorkspaceFd, "").first, kENoent);
  auto [err, dfd] = g_.open(kWorkspaceFd, "d", kOflagDirectory);
  ASSERT_EQ(err, 0u);
  // A directory fd resolves paths below itself.
  auto [ferr, ffd] = g_.open(dfd, "inner.txt", kOflagCreat, true);
  ASSERT_EQ(ferr, 0u);
  EXPECT_EQ(g_.write(ffd, {"in d"}).first, 0u);
  EXPECT_EQ(ws_.read("/workspace/d/inner.txt").content, "in d");
  EXPECT_EQ(g_.read(dfd).first, kEIsdir);
  // Read-only fds cannot write, write-only fds cannot read.
  auto [rerr, rfd] = g_.open(kWorkspaceFd, "f");
  ASSERT_EQ(rerr, 0u);
  EXPECT_EQ(g_.write(rfd, {"no"}).first, kEBadf);
}

TEST_F(WasiFs, PathsNeverEscapeTheirDirectory) {
  for (const char* path : {"../etc/passwd", "../../etc/passwd", "a/../../x", "/etc/passwd",
                           "/workspace/x", "./../x"}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(g_.open(kWorkspaceFd, path).first, kENotcapable);
    EXPECT_EQ(g_.open(kStdlibFd, path).first, kENotcapable);
    EXPECT_EQ(g_.open(kDevFd, path).first, kENotcapable);
    EXPECT_EQ(g_.stat(kWorkspaceFd, path).first, kENotcapable);
    EXPECT_EQ(g_.mkdir(kWorkspaceFd, path), kENotcapable);
    EXPECT_EQ(g_.open(kWorkspaceFd, path, kOflagCreat, true).first, kENotcapable);
  }
  ws_.mkdir("/workspace/d", false);
  auto [err, dfd] = g_.open(kWorkspaceFd, "d", kOflagDirectory);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(g_.open(dfd, "..").first, kENotcapable);
  EXPECT_EQ(g_.open(dfd, "../d").first, kENotcapable);
  // ".." inside the directory is fine.
  ws_.write("/workspace/top.txt", "top");
  auto [ok, fd] = g_.open(kWorkspaceFd, "d/../top.txt");
  ASSERT_EQ(ok, 0u);
  EXPECT_EQ(g_.read(fd).second, "top");
  // Names the guest creates must be UTF-8 (they travel as JSON strings).
  EXPECT_EQ(g_.open(kWorkspaceFd, "bad\xff", kOflagCreat, true).first, kEIlseq);
  EXPECT_EQ(g_.open(kWorkspaceFd, std::string("nul\0x", 5), kOflagCreat, true).first, kEInval);
  EXPECT_EQ(g_.open(kWorkspaceFd, std::string(5000, 'a')).first, kENametoolong);
}

TEST_F(WasiFs, DescriptorNumbersOnlyGrow) {
  EXPECT_EQ(g_.host().fd_base(), 6u);
  EXPECT_FALSE(g_.host().has_open_guest_fds());
  auto [e1, fd1] = g_.open(kStdlibFd, "os.py");
  ASSERT_EQ(e1, 0u);
  EXPECT_EQ(fd1, 6u);
  EXPECT_TRUE(g_.host().has_open_guest_fds());
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_close(g_.ctx(), fd1), 0u);
  EXPECT_FALSE(g_.host().has_open_guest_fds());
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_close(g_.ctx(), fd1), kEBadf);
  auto [e2, fd2] = g_.open(kStdlibFd, "os.py");
  ASSERT_EQ(e2, 0u);
  EXPECT_EQ(fd2, 7u);  // 6 is never reused
  // Renumbering within guest fds works; into a fixed slot it is refused.
  auto [e3, fd3] = g_.open(kStdlibFd, "pkg/mod.py");
  ASSERT_EQ(e3, 0u);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_renumber(g_.ctx(), fd3, 1), kENotsup);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_renumber(g_.ctx(), fd3, fd2), 0u);
  EXPECT_EQ(g_.read(fd2).second, "VALUE = 1\n");
  EXPECT_EQ(g_.read(fd3).first, kEBadf);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_renumber(g_.ctx(), 99, fd2), kEBadf);
  EXPECT_EQ(Z_wasi_snapshot_preview1Z_fd_close(g_.ctx(), fd2), 0u);
  EXPECT_FALSE(g_.host().has_open_guest_fds());
  // An open directory counts too.
  auto [e4, dfd] = g_.open(kStdlibFd, "pkg", kOflagDirectory);
  ASSERT_EQ(e4, 0u);
  EXPECT_EQ(dfd, 9u);
  EXPECT_TRUE(g_.host().has_open_guest_fds());
}

TEST_F(WasiFs, TooManyOpenDescriptorsIsEmfile) {
  for (std::size_t i = 0; i < kMaxOpenGuestFds; ++i) {
    ASSERT_EQ(g_.open(kStdlibFd, "os.py").first, 0u);
  }
  EXPECT_EQ(g_.open(kStdlibFd, "os.py").first, kEMfile);
}

TEST_F(WasiFs, FilestatReportsWorkspaceTimes) {
  clock_.set(1'700'000'123'456);
  ws_.write("/workspace/f", "abc");
  auto [err, fd] = g_.open(kWorkspaceFd, "f");
  ASSERT_EQ(err, 0u);
  const std::uint32_t out = g_.alloc(64);
  ASSERT_EQ(Z_wasi_snapshot_preview1Z_fd_filestat_get(g_.ctx(), fd, out), 0u);
  EXPECT_EQ(g_.u8(out + 16), kFiletypeRegularFile);
  EXPECT_EQ(g_.u64(out + 32), 3u);
  EXPECT_EQ(g_.u64(out + 48), 1'700'000'123'456ull * 1'000'000ull);
  auto [serr, st] = g_.stat(kWorkspaceFd, "f");
  ASSERT_EQ(serr, 0u);
  EXPECT_EQ(g_.u64(st + 8), g_.u64(out + 8));  // same inode through both paths
  auto [derr, dst] = g_.stat(kWorkspaceFd, ".");
  ASSERT_EQ(derr, 0u);
  EXPECT_EQ(g_.u8(dst + 16), kFiletypeDirectory);
  EXPECT_EQ(g_.u64(dst + 48), 0u);
}

}  // namespace
}  // namespace sandbox
