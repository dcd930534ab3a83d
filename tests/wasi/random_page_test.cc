// os_random (src/wasi/random_page.h): the kernel's random bytes, taken a page at a time per
// thread, never handed out twice, not even across a fork.
#include "wasi/random_page.h"

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sandbox::wasi {
namespace {

using Draw = std::array<std::uint8_t, 16>;

Draw draw() {
  Draw d{};
  EXPECT_TRUE(os_random(d.data(), d.size()));
  return d;
}

// A process forked from one that holds a page of unused bytes must not hand out those bytes
// (the zygote forks every worker): without MADV_WIPEONFORK, parent and child would draw the
// same 16 bytes next.
TEST(RandomPage, AForkedChildDrawsOtherBytesThanItsParent) {
  draw();  // the page now holds bytes no one has had
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const Draw d = draw();
    const bool sent = write(pipe_fds[1], d.data(), d.size()) == static_cast<ssize_t>(d.size());
    _exit(sent ? 0 : 1);
  }
  close(pipe_fds[1]);
  Draw child{};
  ASSERT_EQ(read(pipe_fds[0], child.data(), child.size()), static_cast<ssize_t>(child.size()));
  close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_NE(draw(), child);
}

// Draws of every size around the page and the direct threshold come out different from each
// other (no byte range handed out twice) and not all zero (a handed-out range is zeroed in the
// page, never in what the caller gets).
TEST(RandomPage, DrawsOfEverySizeAreFreshBytes) {
  std::set<std::string> seen;
  for (const std::size_t n :
       {std::size_t{16}, std::size_t{256}, std::size_t{1000}, kRandomDirectBytes,
        kRandomDirectBytes + 1, std::size_t{4000}, std::size_t{70'000}}) {
    for (int i = 0; i < 40; ++i) {
      std::vector<std::uint8_t> bytes(n, 0);
      ASSERT_TRUE(os_random(bytes.data(), n));
      std::size_t zeros = 0;
      for (const std::uint8_t b : bytes) zeros += b == 0 ? 1 : 0;
      EXPECT_LT(zeros, n / 32 + 4) << n;  // about n / 256 expected
      EXPECT_TRUE(seen.insert(std::string(bytes.begin(), bytes.begin() + 16)).second) << n;
    }
  }
}

// Each thread has its own page: two threads drawing at once get different bytes.
TEST(RandomPage, ThreadsDrawFromTheirOwnPages) {
  Draw other{};
  std::thread t([&] { other = draw(); });
  const Draw mine = draw();
  t.join();
  EXPECT_NE(mine, other);
}

}  // namespace
}  // namespace sandbox::wasi
