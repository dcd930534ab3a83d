// Hot pages of userfaultfd write tracking (docs/snapshot-format.md#hot-pages): a 4 KiB page
// found written stays writable, so a page written collection after collection costs no fault;
// it is reported only when its bytes changed, and protected again once it stays quiet. Faults
// are counted with getrusage(RUSAGE_THREAD): the count is the same on every host.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>
#include <sys/mman.h>

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

// Stores one byte and returns the faults it cost.
long faults_writing(std::uint8_t* at, std::uint8_t value) {
  const long before = testing_support::thread_minor_faults();
  *at = value;
  return testing_support::thread_minor_faults() - before;
}

// The 4 KiB pages a report names: its first `n` 64 KiB pages, each with its mask of written
// 4 KiB pages.
std::set<std::size_t> small_pages(const std::uint32_t* pages, const std::uint16_t* blocks,
                                  std::size_t n) {
  std::set<std::size_t> small;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t b = 0; b < kPage / kSmall; ++b) {
      if (blocks[i] & (1U << b)) small.insert(pages[i] * (kPage / kSmall) + b);
    }
  }
  return small;
}

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
    return faults_writing(&inst_->memory()[at], value);
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

// A hot page unchanged for SANDBOX_UFFD_HOT_QUIET_COLLECTIONS collections stays writable until
// the next protection round (every SANDBOX_UFFD_HOT_PROTECT_PERIOD-th collection since tracking
// was armed), and is protected then.
TEST_F(HotPages, AQuietHotPageIsProtectedAgainAtTheNextProtectionRound) {
  arm(SANDBOX_WASM_HOT_PAGES);
  write(5 * kPage, 1);
  ASSERT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{5});  // collection 1
  for (int collection = 2; collection <= SANDBOX_UFFD_HOT_PROTECT_PERIOD; ++collection) {
    // The same byte again: no fault, nothing changed.
    EXPECT_EQ(write(5 * kPage, 1), 0) << "still hot before collection " << collection;
    ASSERT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{});
  }
  EXPECT_EQ(write(5 * kPage, 9), 1);  // protected by the round: the write faults
  EXPECT_EQ(inst_->take_dirty_pages(), std::vector<std::uint32_t>{5});
}

// A page that went quiet too short a time before a round stays hot until the round after.
TEST_F(HotPages, APageQuietForTooFewCollectionsAtARoundWaitsForTheNext) {
  arm(SANDBOX_WASM_HOT_PAGES);
  const int changed_until =
      SANDBOX_UFFD_HOT_PROTECT_PERIOD - SANDBOX_UFFD_HOT_QUIET_COLLECTIONS + 1;
  for (int collection = 1; collection <= 2 * SANDBOX_UFFD_HOT_PROTECT_PERIOD; ++collection) {
    const bool change = collection <= changed_until;
    const long faults =
        write(7 * kPage, static_cast<std::uint8_t>(change ? collection : changed_until));
    EXPECT_EQ(faults, collection == 1 ? 1 : 0) << "collection " << collection;
    ASSERT_EQ(inst_->take_dirty_pages(),
              change ? std::vector<std::uint32_t>{7} : std::vector<std::uint32_t>{})
        << "collection " << collection;
  }
  EXPECT_EQ(write(7 * kPage, 1), 1);  // protected by the second round
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
    const std::set<std::size_t> reported = small_pages(pages.data(), blocks.data(), pages.size());
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

// The primitives on a plain mapping: which calls a protection round makes.
class HotPageRounds : public ::testing::Test {
 protected:
  static constexpr std::uint32_t kPages = 256;  // 4 KiB pages: 1 MiB
  static constexpr std::size_t kBytes = std::size_t{kPages} * kSmall;

  void SetUp() override {
    if (!sandbox_uffd_available()) GTEST_SKIP() << "userfaultfd unavailable";
    void* p = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    base_ = static_cast<std::uint8_t*>(p);
    std::memset(base_, 0, kBytes);  // every page present: only protection faults are counted
    ASSERT_EQ(sandbox_uffd_arm(base_, kBytes, kBytes), 0);
    ASSERT_EQ(sandbox_uffd_hot_init(&hot_, 64), 0);
  }
  void TearDown() override {
    if (base_ == nullptr) return;
    sandbox_uffd_hot_free(&hot_);
    sandbox_uffd_disarm(base_, kBytes);
    ::munmap(base_, kBytes);
  }
  long write(std::size_t page, std::uint8_t value) {
    return faults_writing(&base_[page * kSmall + 9], value);
  }
  // One collection; the 4 KiB pages it reports.
  std::set<std::size_t> collect() {
    std::vector<std::uint32_t> out(kBytes / kPage);
    std::vector<std::uint16_t> blocks(kBytes / kPage);
    const std::int64_t n =
        sandbox_uffd_collect_hot(base_, kBytes, &hot_, out.data(), blocks.data(), nullptr);
    EXPECT_GE(n, 0);
    return small_pages(out.data(), blocks.data(),
                       static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  }

  std::uint8_t* base_ = nullptr;
  sandbox_uffd_hot hot_{};
};

// Quiet pages protected by one round take one call per run: pages 1, 3 and 10 (the pages
// between are protected already) in one, page 30 in another (page 20, still hot, lies between),
// page 200 in a third (farther than SANDBOX_UFFD_PROTECT_MERGE_GAP). Before the round, no
// call at all. The pages in between stay exactly tracked.
TEST_F(HotPageRounds, QuietPagesAreProtectedInOneCallPerRun) {
  static_assert(200 - 30 > SANDBOX_UFFD_PROTECT_MERGE_GAP);
  const std::set<std::size_t> once = {1, 3, 10, 30, 200};
  for (const std::size_t page : once) write(page, 1);
  ASSERT_EQ(collect(), once);  // collection 1
  for (int collection = 2; collection <= SANDBOX_UFFD_HOT_PROTECT_PERIOD; ++collection) {
    write(20, static_cast<std::uint8_t>(collection));  // hot, changing every time
    const std::set<std::size_t> expected = {20};
    ASSERT_EQ(collect(), expected) << "collection " << collection;
    if (collection < SANDBOX_UFFD_HOT_PROTECT_PERIOD) {
      ASSERT_EQ(hot_.protect_calls, 0U) << "collection " << collection;
    }
  }
  EXPECT_EQ(hot_.protect_calls, 3U);
  for (const std::size_t page : once) EXPECT_EQ(write(page, 2), 1) << "page " << page;
  EXPECT_EQ(write(20, 1), 0);  // still hot
  EXPECT_EQ(write(2, 0), 1);   // between the merged pages: protected, and its bytes unchanged
  std::set<std::size_t> expected = once;
  expected.insert(20);
  expected.insert(2);  // written, though with the bytes it had: reported as any first write is
  EXPECT_EQ(collect(), expected);
}

}  // namespace
}  // namespace sandbox::wasm
