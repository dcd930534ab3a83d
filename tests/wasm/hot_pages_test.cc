// Hot pages of userfaultfd write tracking (docs/snapshot-format.md#hot-pages): a 4 KiB page
// found written stays writable, so a page written collection after collection costs no fault;
// it is reported only when its bytes changed, and protected again once it stays quiet. Faults
// are counted with getrusage(RUSAGE_THREAD): the count is the same on every host.
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "support/proc_memory.h"
#include "test_host.h"
#include "wasm/uffd_tracking.h"
#include "wasm/write_tracking.h"

namespace sandbox::wasm {
namespace {

using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

constexpr std::size_t kPage = 65536;
constexpr std::size_t kSmall = 4096;

class HotPages : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!userfaultfd_tracking_available()) GTEST_SKIP() << "userfaultfd unavailable";
    saved_limit_ = sandbox_wasm_hot_page_limit();
    inst_ = make_instance(plain_module(), env_);
    ASSERT_NE((inst_->call<std::uint32_t(std::uint32_t)>("grow", 8).value), 0xffffffffu);
    // Every page present, so that only write-protection faults are counted below.
    std::memset(inst_->memory().data(), 0, inst_->memory().size());
  }
  void TearDown() override { sandbox_wasm_set_hot_page_limit(saved_limit_); }
  void arm(std::uint32_t limit) {
    sandbox_wasm_set_hot_page_limit(limit);
    ASSERT_TRUE(inst_->track_writes(WriteTracking::kUserfaultfd));
  }
  // Writes one byte and returns the faults it cost.
  long write(std::size_t at, std::uint8_t value) {
    const long before = testing_support::thread_minor_faults();
    inst_->memory()[at] = value;
    return testing_support::thread_minor_faults() - before;
  }

  TestEnv env_;
  std::unique_ptr<Instance> inst_;
  std::uint32_t saved_limit_ = 0;
};

TEST_F(HotPages, APageWrittenEveryCollectionFaultsOnlyTheFirstTime) {
  arm(SANDBOX_WASM_HOT_PAGES);
  long faults = 0;
  for (int round = 0; round < 20; ++round) {
    const long cost = write(3 * kPage + 5, static_cast<std::uint8_t>(round + 1));
    if (round > 0) faults += cost;
    EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{3}) << "round " << round;
  }
  EXPECT_EQ(faults, 0);
}

TEST_F(HotPages, WithoutHotPagesEveryCollectionProtectsAgain) {
  arm(0);
  long faults = 0;
  for (int round = 0; round < 10; ++round) {
    faults += write(3 * kPage + 5, static_cast<std::uint8_t>(round + 1));
    EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{3});
  }
  EXPECT_EQ(faults, 10);
}

TEST_F(HotPages, AHotPageRewrittenWithItsBytesIsNotReported) {
  arm(SANDBOX_WASM_HOT_PAGES);
  write(2 * kPage + 100, 7);
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{2});
  write(2 * kPage + 100, 7);  // the same bytes
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{});
  write(2 * kPage + 100, 8);
  write(2 * kPage + 100, 7);  // changed and changed back between two collections
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{});
  write(2 * kPage + 101, 1);
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{2});
}

TEST_F(HotPages, AQuietHotPageIsProtectedAgain) {
  arm(SANDBOX_WASM_HOT_PAGES);
  write(5 * kPage, 1);
  ASSERT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{5});
  for (int quiet = 0; quiet < SANDBOX_UFFD_HOT_QUIET_COLLECTIONS; ++quiet) {
    EXPECT_EQ(write(5 * kPage, 2 + quiet % 2), 0) << "still hot after " << quiet;
    ASSERT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{5});
  }
  // Quiet collections: unchanged bytes.
  for (int quiet = 0; quiet < SANDBOX_UFFD_HOT_QUIET_COLLECTIONS; ++quiet) {
    ASSERT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{});
  }
  EXPECT_EQ(write(5 * kPage, 9), 1);  // protected again: the write faults
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{5});
}

// With room for two hot pages, a third written page is protected again at once: the report is
// exact and the third page faults every time.
TEST_F(HotPages, PagesPastTheLimitAreProtectedAgain) {
  arm(2);
  long third = 0;
  for (int round = 0; round < 5; ++round) {
    const auto v = static_cast<std::uint8_t>(round + 1);
    write(1 * kPage, v);
    write(2 * kPage, v);
    third += write(4 * kPage, v);
    EXPECT_EQ(inst_->take_dirty_pages(), (std::vector<std::uint32_t>{1, 2, 4}));
  }
  EXPECT_EQ(third, 5);
}

// Random writes by guest and host code, some of them rewriting the bytes already there, over
// many collections: every page whose bytes changed since the last collection is reported, with
// the block that changed, and nothing that was not written.
TEST_F(HotPages, RandomWritesReportEveryChangeAndNothingUnwritten) {
  arm(16);  // small, so pages keep entering and leaving the hot set
  std::mt19937 rng(4242);
  const std::size_t bytes = inst_->memory().size();
  std::vector<std::uint8_t> last(inst_->memory().begin(), inst_->memory().end());
  for (int round = 0; round < 300; ++round) {
    std::set<std::size_t> written;
    // A few places written again and again, and some anywhere.
    const int writes = static_cast<int>(rng() % 24);
    for (int i = 0; i < writes; ++i) {
      const std::size_t at = rng() % 3 == 0 ? (rng() % 8) * kSmall * 3 + 17 : rng() % bytes;
      const auto value = static_cast<std::uint8_t>(rng() % 4 == 0 ? inst_->memory()[at] : rng());
      if (rng() % 2 == 0) {
        inst_->call<void(std::uint32_t, std::uint32_t)>(
            "store", static_cast<std::uint32_t>(at & ~std::size_t{3}),
            static_cast<std::uint32_t>(value) * 0x01010101u);
        written.insert((at & ~std::size_t{3}) / kSmall);
      } else {
        inst_->memory()[at] = value;
        written.insert(at / kSmall);
      }
    }
    std::vector<std::uint16_t> blocks;
    const auto dirty = inst_->take_dirty_pages(blocks);
    ASSERT_TRUE(dirty.has_value());
    const std::vector<std::uint32_t> pages = dirty.value_or(std::vector<std::uint32_t>{});
    std::set<std::size_t> reported;
    for (std::size_t i = 0; i < pages.size(); ++i) {
      for (std::size_t b = 0; b < kPage / kSmall; ++b) {
        if (blocks[i] & (1U << b)) reported.insert(pages[i] * (kPage / kSmall) + b);
      }
    }
    for (std::size_t q = 0; q < bytes / kSmall; ++q) {
      const bool changed =
          std::memcmp(last.data() + q * kSmall, inst_->memory().data() + q * kSmall, kSmall) != 0;
      if (changed) {
        EXPECT_TRUE(reported.count(q)) << "round " << round << " 4 KiB page " << q;
      }
      if (reported.count(q)) {
        EXPECT_TRUE(written.count(q)) << "round " << round << " 4 KiB page " << q;
      }
    }
    std::memcpy(last.data(), inst_->memory().data(), bytes);
  }
}

TEST_F(HotPages, TrackingAgainForgetsTheHotPages) {
  arm(SANDBOX_WASM_HOT_PAGES);
  write(6 * kPage, 1);
  ASSERT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{6});
  ASSERT_TRUE(inst_->track_writes(WriteTracking::kUserfaultfd));
  EXPECT_EQ(write(6 * kPage, 1),
            1);  // protected again, and reported though its bytes did not change
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{6});
}

// A restore seeds the pages it wrote as hot pages: writing them costs no fault, and they are
// reported only when their bytes change from what the restore left.
TEST_F(HotPages, SeededPagesStartHot) {
  arm(SANDBOX_WASM_HOT_PAGES);
  const std::vector<std::uint32_t> seeded = {16, 17, 40};  // 4 KiB pages: 64 KiB pages 1 and 2
  ASSERT_EQ(sandbox_wasm_seed_hot_pages(inst_->rt_memory(), seeded.data(), seeded.size()), 3);
  EXPECT_EQ(write(17 * kSmall + 1, 0), 0);  // the same bytes, no fault
  EXPECT_EQ(write(40 * kSmall + 2, 5), 0);
  EXPECT_EQ(write(50 * kSmall, 5), 1);  // not seeded: protected
  EXPECT_EQ(inst_->take_dirty_pages(), (std::vector<std::uint32_t>{2, 3}));
}

TEST_F(HotPages, SeedingPagesOutOfOrderProtectsEverything) {
  arm(SANDBOX_WASM_HOT_PAGES);
  const std::vector<std::uint32_t> seeded = {17, 16};
  EXPECT_EQ(sandbox_wasm_seed_hot_pages(inst_->rt_memory(), seeded.data(), seeded.size()), -1);
  EXPECT_EQ(inst_->write_tracking(), WriteTracking::kUserfaultfd);
  EXPECT_EQ(write(16 * kSmall, 1), 1);
  EXPECT_EQ(write(17 * kSmall, 1), 1);
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{1});
}

}  // namespace
}  // namespace sandbox::wasm
