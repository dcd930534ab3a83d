#include "wasi/output_capture.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sandbox/protocol.h>

#include "base/lines.h"
#include "wasi_test_util.h"
#include "wasm/host_call.h"

namespace sandbox {
namespace {

using sandbox::split_lines;
using testing_wasi::FakeGuest;
using testing_wasi::trap_of;
using wasi::OutputCapture;

TEST(SplitLines, DropsOneTrailingEmptyLine) {
  EXPECT_EQ(split_lines("a\nb\n"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_lines("a\nb"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_lines(""), std::vector<std::string>{});
  EXPECT_EQ(split_lines("\n"), (std::vector<std::string>{""}));
  EXPECT_EQ(split_lines("a\n\n"), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(split_lines("a\n\nb\r\n"), (std::vector<std::string>{"a", "", "b\r"}));
}

TEST(OutputCapture, ConcatenatesPiecesPerStream) {
  OutputCapture c(100, 10);
  EXPECT_TRUE(c.append(OutputStream::kStdout, "hel"));
  EXPECT_TRUE(c.append(OutputStream::kStderr, "oops\n"));
  EXPECT_TRUE(c.append(OutputStream::kStdout, "lo\nworld\n"));
  const Logs logs = c.logs();
  EXPECT_EQ(logs.stdout_lines, (std::vector<std::string>{"hello", "world"}));
  EXPECT_EQ(logs.stderr_lines, (std::vector<std::string>{"oops"}));
}

TEST(OutputCapture, RefusesThePieceThatCrossesTheByteLimitWithoutTruncating) {
  OutputCapture c(10, 200);
  EXPECT_TRUE(c.append(OutputStream::kStdout, "12345"));
  EXPECT_TRUE(c.append(OutputStream::kStdout, "67890"));  // exactly 10: allowed
  EXPECT_FALSE(c.exceeded());
  EXPECT_FALSE(c.append(OutputStream::kStdout, "x"));
  EXPECT_TRUE(c.exceeded());
  EXPECT_EQ(c.logs().stdout_lines, (std::vector<std::string>{"1234567890"}));
}

TEST(OutputCapture, RefusesThePieceAfterTheChunkLimit) {
  OutputCapture c(1'000'000, 3);
  EXPECT_TRUE(c.append(OutputStream::kStdout, "a"));
  EXPECT_TRUE(c.append(OutputStream::kStderr, "b"));
  EXPECT_TRUE(c.append(OutputStream::kStdout, "c"));
  EXPECT_TRUE(c.append(OutputStream::kStdout, ""));  // empty pieces are ignored
  EXPECT_FALSE(c.append(OutputStream::kStdout, "d"));
  EXPECT_EQ(c.logs().stdout_lines, (std::vector<std::string>{"ac"}));
}

TEST(OutputCapture, CountsDecodedBytesAndReplacesInvalidUtf8) {
  OutputCapture c(3, 200);
  // One invalid byte decodes to U+FFFD (3 bytes).
  EXPECT_TRUE(c.append(OutputStream::kStdout, "\xff"));
  EXPECT_EQ(c.logs().stdout_lines, (std::vector<std::string>{"\xef\xbf\xbd"}));
  EXPECT_FALSE(c.append(OutputStream::kStdout, "a"));
}

TEST(OutputCapture, JoinsACharacterSplitBetweenPieces) {
  OutputCapture c(100, 10);
  EXPECT_TRUE(c.append(OutputStream::kStdout, "caf\xc3"));
  EXPECT_TRUE(c.append(OutputStream::kStderr, "\xe2\x82"));  // other stream, own tail
  EXPECT_TRUE(c.append(OutputStream::kStdout, "\xa9!\n"));
  EXPECT_TRUE(c.append(OutputStream::kStderr, "\xac\n"));
  EXPECT_EQ(c.logs().stdout_lines, std::vector<std::string>{"caf\xc3\xa9!"});
  EXPECT_EQ(c.logs().stderr_lines, std::vector<std::string>{"\xe2\x82\xac"});
  // A tail that never completes shows as U+FFFD; a piece that is only a partial character
  // stores nothing yet.
  OutputCapture d(100, 1);
  EXPECT_TRUE(d.append(OutputStream::kStdout, "\xf0\x9f"));
  EXPECT_EQ(d.logs().stdout_lines, std::vector<std::string>{"\xef\xbf\xbd"});
  EXPECT_TRUE(d.append(OutputStream::kStdout, "\x98\x80"));
  EXPECT_EQ(d.logs().stdout_lines, std::vector<std::string>{"\xf0\x9f\x98\x80"});
}

TEST(OutputCapture, ResetForgetsOutputAndCounters) {
  OutputCapture c(4, 1);
  EXPECT_TRUE(c.append(OutputStream::kStdout, "abcd"));
  EXPECT_FALSE(c.append(OutputStream::kStdout, "e"));
  c.reset();
  EXPECT_FALSE(c.exceeded());
  EXPECT_TRUE(c.append(OutputStream::kStdout, "efgh"));
  EXPECT_EQ(c.logs().stdout_lines, (std::vector<std::string>{"efgh"}));
}

TEST(WasiOutput, FdWriteCapturesEachIovecAsAPiece) {
  FakeGuest g(WasiOptions{.output_limit_chunks = 3});
  auto [err, n] = g.write(1, {"one\n", "two\n"});
  EXPECT_EQ(err, 0u);
  EXPECT_EQ(n, 8u);
  EXPECT_EQ(g.write(2, {"warn\n"}).first, 0u);
  EXPECT_EQ(g.host().logs().stdout_lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(g.host().logs().stderr_lines, (std::vector<std::string>{"warn"}));
  // The fourth piece is over the chunk limit: the guest traps, nothing of it is kept.
  // Only plain values live in the trapping frame: a trap longjmps past destructors.
  const std::uint32_t iov = g.iovecs({"three\n"});
  const std::uint32_t written = g.alloc(4);
  const auto trap =
      trap_of([&] { Z_wasi_snapshot_preview1Z_fd_write(g.ctx(), 1, iov, 1, written); });
  ASSERT_TRUE(trap.has_value());
  EXPECT_EQ(*trap, static_cast<std::uint32_t>(SANDBOX_TRAP_OUTPUT_LIMIT));
  EXPECT_TRUE(g.host().output_limit_exceeded());
  EXPECT_EQ(g.host().logs().stdout_lines, (std::vector<std::string>{"one", "two"}));
}

TEST(WasiOutput, AFloodTrapsAtTheByteLimit) {
  FakeGuest g(WasiOptions{});
  const std::string line(1000, 'x');
  int written = 0;
  const std::uint32_t iov = g.iovecs({line});
  const std::uint32_t out = g.alloc(4);
  const auto trap = trap_of([&] {
    for (int i = 0; i < 100; ++i) {
      Z_wasi_snapshot_preview1Z_fd_write(g.ctx(), 1, iov, 1, out);
      ++written;
    }
  });
  ASSERT_TRUE(trap.has_value());
  EXPECT_EQ(*trap, static_cast<std::uint32_t>(SANDBOX_TRAP_OUTPUT_LIMIT));
  EXPECT_EQ(written, 32);  // 32 * 1000 <= 32768 < 33 * 1000
  EXPECT_EQ(g.host().logs().stdout_lines.at(0).size(), 32'000u);
}

TEST(WasiOutput, CaptureFromADriverThrowsTheLimitError) {
  FakeGuest g(WasiOptions{.output_limit_bytes = 5});
  g.host().capture(OutputStream::kStdout, "abc");
  try {
    g.host().capture(OutputStream::kStderr, "def");
    FAIL() << "expected ExecutionLimitError";
  } catch (const ExecutionLimitError& e) {
    EXPECT_STREQ(e.what(), "Output limit exceeded");
  }
  g.host().reset_logs();
  EXPECT_TRUE(g.host().logs().stdout_lines.empty());
  g.host().capture(OutputStream::kStdout, "12345");
}

TEST(WasiOutput, WritesToStdinAreRefused) {
  FakeGuest g(WasiOptions{});
  EXPECT_EQ(g.write(0, {"x"}).first, wasi::kEBadf);
  auto [err, text] = g.read(0);
  EXPECT_EQ(err, 0u);
  EXPECT_EQ(text, "");
  EXPECT_EQ(g.read(1).first, wasi::kEBadf);
}

// Issue 12 item 8c: a guest's single huge write over the limit is refused before the host
// copies it. The piece lies in address space of which only the last page is readable, so a
// copy of the whole piece faults on its first byte.
TEST(OutputCapture, AHugePieceOverTheLimitIsRefusedWithoutCopyingIt) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t size = 64u << 20;
  void* base = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(base, MAP_FAILED);
  char* bytes = static_cast<char*>(base);
  ASSERT_EQ(mprotect(bytes + size - page, page, PROT_READ), 0);
  OutputCapture c(kOutputLimitBytes, kOutputLimitChunks);
  EXPECT_TRUE(c.append(OutputStream::kStdout, "before\n"));
  EXPECT_FALSE(c.append(OutputStream::kStdout, std::string_view(bytes, size)));
  EXPECT_TRUE(c.exceeded());
  EXPECT_EQ(c.logs().stdout_lines, std::vector<std::string>{"before"});
  munmap(base, size);
}

// The held-back tail of a split character is still found when the check comes first.
TEST(OutputCapture, ASplitCharacterAtTheEndOfALongPieceIsHeldBack) {
  OutputCapture c(100, 10);
  EXPECT_TRUE(c.append(OutputStream::kStdout, "abcdef\xE2\x82"));
  EXPECT_TRUE(c.append(OutputStream::kStdout, "\xAC!\n"));
  EXPECT_EQ(c.logs().stdout_lines, std::vector<std::string>{"abcdef\xE2\x82\xAC!"});
}

}  // namespace
}  // namespace sandbox
