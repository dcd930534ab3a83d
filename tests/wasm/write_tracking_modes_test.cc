// Write tracking in each mode (include/sandbox/wasm/write_tracking.h, WriteTracking): asynchronous
// userfaultfd, mprotect and none (hashing). Every mode reports at least every written page; the two
// tracking modes report exactly the written 64 KiB pages, also for writes by system calls (uffd),
// on a private memfd mapping, and after growth; the automatic choice falls back to mprotect when
// userfaultfd(2) is unavailable.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test_host.h"

namespace sandbox::wasm {
namespace {

using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

constexpr std::uint32_t kPage = 65536;
constexpr std::uint32_t kSmall = 4096;

bool available(WriteTracking mode) {
  return mode != WriteTracking::kUserfaultfd || userfaultfd_tracking_available();
}

std::vector<std::uint32_t> sorted(const std::set<std::uint32_t>& s) { return {s.begin(), s.end()}; }

class WriteTrackingModes : public ::testing::TestWithParam<WriteTracking> {
 protected:
  void SetUp() override {
    if (!available(GetParam())) GTEST_SKIP() << "userfaultfd write-protection unavailable";
    inst_ = make_instance(plain_module(), env_);
    ASSERT_NE((inst_->call<std::uint32_t(std::uint32_t)>("grow", 30).value), 0xffffffffu);
    ASSERT_TRUE(inst_->track_writes(GetParam()));
    ASSERT_EQ(inst_->write_tracking(), GetParam());
  }
  void store(std::uint32_t at, std::uint32_t v) {
    inst_->call<void(std::uint32_t, std::uint32_t)>("store", at & ~3u, v);
  }

  TestEnv env_;
  std::unique_ptr<Instance> inst_;
};

TEST_P(WriteTrackingModes, RandomWritePatternsAreReportedExactly) {
  std::mt19937 rng(1234 + static_cast<int>(GetParam()));
  const std::uint32_t pages = inst_->memory_pages();
  for (int round = 0; round < 20; ++round) {
    std::set<std::uint32_t> expected;
    const int writes = static_cast<int>(rng() % 40);
    for (int i = 0; i < writes; ++i) {
      const std::uint32_t at = static_cast<std::uint32_t>(rng() % (std::uint64_t{pages} * kPage));
      if (rng() % 2 == 0) {
        store(at, static_cast<std::uint32_t>(rng()));  // guest code
      } else {
        inst_->memory()[at] ^= 0x5a;  // host code
      }
      expected.insert(at / kPage);
    }
    // Reads cost nothing and are not reported.
    for (int i = 0; i < 10; ++i) {
      (void)inst_->call<std::uint32_t(std::uint32_t)>("load", (rng() % (pages * kPage)) & ~3u);
    }
    EXPECT_EQ(inst_->take_dirty_pages(), sorted(expected)) << "round " << round;
  }
}

// The blocks of each dirty page: exactly the written 4 KiB blocks with userfaultfd, every block
// with mprotect (it knows pages only); random writes by guest and host code, several rounds.
TEST_P(WriteTrackingModes, DirtyBlocksAreTheWrittenBlocksOfEachPage) {
  std::mt19937 rng(99 + static_cast<int>(GetParam()));
  const std::uint32_t pages = inst_->memory_pages();
  for (int round = 0; round < 20; ++round) {
    std::map<std::uint32_t, std::uint16_t> expected;
    const int writes = static_cast<int>(rng() % 40);
    for (int i = 0; i < writes; ++i) {
      const std::uint32_t at = static_cast<std::uint32_t>(rng() % (std::uint64_t{pages} * kPage));
      if (rng() % 2 == 0) {
        store(at, static_cast<std::uint32_t>(rng()));
      } else {
        inst_->memory()[at] ^= 0x5a;
      }
      const std::uint32_t block = (at & ~3u) % kPage / kSmall;
      expected[at / kPage] |= static_cast<std::uint16_t>(1U << block);
    }
    std::vector<std::uint16_t> blocks;
    const auto dirty = inst_->take_dirty_pages(blocks);
    ASSERT_TRUE(dirty.has_value());
    ASSERT_EQ(blocks.size(), dirty->size());
    std::map<std::uint32_t, std::uint16_t> got;
    for (std::size_t i = 0; i < dirty->size(); ++i) got[(*dirty)[i]] = blocks[i];
    if (GetParam() == WriteTracking::kMprotect) {
      for (auto& [page, mask] : expected) mask = 0xFFFF;
    }
    EXPECT_EQ(got, expected) << "round " << round;
  }
}

TEST_P(WriteTrackingModes, GrowthIsTrackedAndUnwrittenNewPagesAreNot) {
  const std::uint32_t pages = inst_->memory_pages();
  ASSERT_EQ((inst_->call<std::uint32_t(std::uint32_t)>("grow", 5).value), pages);
  store((pages + 3) * kPage + 100, 1);
  inst_->memory()[std::size_t{pages + 4} * kPage] = 2;
  EXPECT_EQ(inst_->take_dirty_pages(), (std::vector<std::uint32_t>{pages + 3, pages + 4}));
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{});
}

TEST_P(WriteTrackingModes, TrackingAgainStartsFromACleanSet) {
  store(3 * kPage, 1);
  ASSERT_TRUE(inst_->track_writes(GetParam()));
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{});
  store(3 * kPage, 2);
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{3});
}

INSTANTIATE_TEST_SUITE_P(Modes, WriteTrackingModes,
                         ::testing::Values(WriteTracking::kUserfaultfd, WriteTracking::kMprotect),
                         [](const auto& info) {
                           return info.param == WriteTracking::kUserfaultfd ? "uffd" : "mprotect";
                         });

TEST(WriteTracking, NoneTracksNothingSoEveryPageCounts) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  EXPECT_FALSE(inst->track_writes(WriteTracking::kNone));
  EXPECT_EQ(inst->write_tracking(), WriteTracking::kNone);
  inst->memory()[5] = 1;
  EXPECT_EQ(inst->take_dirty_pages(), std::nullopt);  // the caller hashes every page
}

class UffdTracking : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!userfaultfd_tracking_available()) GTEST_SKIP() << "userfaultfd unavailable";
    inst_ = make_instance(plain_module(), env_);
    ASSERT_NE((inst_->call<std::uint32_t(std::uint32_t)>("grow", 8).value), 0xffffffffu);
  }
  TestEnv env_;
  std::unique_ptr<Instance> inst_;
};

// System calls writing guest memory succeed (no EFAULT, unlike mprotect tracking) and are seen.
TEST_F(UffdTracking, WritesBySystemCallsAreSeen) {
  ASSERT_TRUE(inst_->track_writes(WriteTracking::kUserfaultfd));
  std::uint8_t* mem = inst_->memory().data();
  ASSERT_EQ(getrandom(mem + 2 * kPage + 7, 3 * kSmall, 0), static_cast<ssize_t>(3 * kSmall));
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "hello", 5), 5);
  EXPECT_EQ(read(fds[0], mem + 6 * kPage + 1000, 5), 5);
  close(fds[0]);
  close(fds[1]);
  EXPECT_EQ(std::memcmp(mem + 6 * kPage + 1000, "hello", 5), 0);
  EXPECT_EQ(inst_->take_dirty_pages(), (std::vector<std::uint32_t>{2, 6}));
}

// A memfd mapped MAP_PRIVATE over the memory (how an image may be mapped copy-on-write): the
// tracker works on it and reports exactly the written pages; reads of image pages are free.
TEST_F(UffdTracking, APrivateMemfdMappingIsTracked) {
  const int fd = memfd_create("image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_GE(fd, 0);
  const std::size_t bytes = 4 * kPage;
  std::vector<std::uint8_t> image(bytes, 0x11);
  ASSERT_EQ(write(fd, image.data(), bytes), static_cast<ssize_t>(bytes));
  ASSERT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL), 0);
  std::uint8_t* mem = inst_->memory().data();
  ASSERT_NE(mmap(mem + kPage, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0),
            MAP_FAILED);
  close(fd);
  ASSERT_TRUE(inst_->track_writes(WriteTracking::kUserfaultfd));
  EXPECT_EQ(inst_->write_tracking(), WriteTracking::kUserfaultfd);
  EXPECT_EQ(mem[2 * kPage + 5], 0x11);  // a read maps the file page
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{});
  mem[3 * kPage + 9] = 0x22;  // copy-on-write of an image page
  inst_->call<void(std::uint32_t, std::uint32_t)>("store", 7 * kPage, 3);  // anonymous page
  EXPECT_EQ(inst_->take_dirty_pages(), (std::vector<std::uint32_t>{3, 7}));
  mem[3 * kPage + 10] = 0x33;  // the private copy was protected again
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{3});
  EXPECT_EQ(mem[3 * kPage + 9], 0x22);
}

// Mapping over a tracked memory drops the kernel's registration: the next collection reports
// that it cannot tell (so the snapshot hashes everything) rather than missing writes.
TEST_F(UffdTracking, AMappingOverATrackedMemoryIsNeverMissed) {
  ASSERT_TRUE(inst_->track_writes(WriteTracking::kUserfaultfd));
  std::uint8_t* mem = inst_->memory().data();
  ASSERT_NE(mmap(mem + kPage, kPage, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
            MAP_FAILED);
  mem[kPage + 1] = 1;
  EXPECT_EQ(inst_->take_dirty_pages(), std::nullopt);
  EXPECT_EQ(inst_->write_tracking(), WriteTracking::kNone);
  // Re-arming registers the new mapping.
  ASSERT_TRUE(inst_->track_writes(WriteTracking::kUserfaultfd));
  mem[kPage + 2] = 2;
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{1});
}

// Installs a seccomp filter failing userfaultfd(2) with ENOSYS, as on a kernel without it.
void block_userfaultfd() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_userfaultfd, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(std::size(filter)), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    std::_Exit(10);
  }
}

// In a fresh process (threadsafe death tests re-execute the binary) without userfaultfd(2),
// the automatic choice is mprotect and it tracks exactly.
TEST(WriteTrackingDeathTest, AutoFallsBackToMprotectWithoutUserfaultfd) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        block_userfaultfd();
        TestEnv env;
        auto inst = make_instance(plain_module(), env);
        if (userfaultfd_tracking_available()) std::_Exit(11);
        if (inst->track_writes(WriteTracking::kUserfaultfd)) std::_Exit(12);
        if (!inst->track_writes()) std::_Exit(13);
        if (inst->write_tracking() != WriteTracking::kMprotect) std::_Exit(14);
        inst->memory()[kPage + 3] = 1;
        if (inst->take_dirty_pages() != std::vector<std::uint32_t>{1}) std::_Exit(15);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// SANDBOX_WRITE_TRACKING forces a mode for the whole process.
TEST(WriteTrackingDeathTest, TheEnvironmentForcesAMode) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SANDBOX_WRITE_TRACKING", "mprotect", 1);
        TestEnv env;
        auto inst = make_instance(plain_module(), env);
        if (!inst->track_writes() || inst->write_tracking() != WriteTracking::kMprotect) {
          std::_Exit(20);
        }
        set_default_write_tracking(WriteTracking::kNone);
        if (inst->track_writes() || inst->take_dirty_pages().has_value()) std::_Exit(21);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        ::setenv("SANDBOX_WRITE_TRACKING", "hash", 1);
        TestEnv env;
        auto inst = make_instance(plain_module(), env);
        std::_Exit(inst->track_writes() ? 30 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace sandbox::wasm
