// A ShadowMemory reused for another instance (src/workers/shadow_memory.h, Pool::take_shadow):
// a reset in place puts back only the blocks written since, and must leave exactly what a fresh
// shadow holds, with nothing of the previous instance left; the blocks made private stay so, so
// writing them again costs no page fault (counted with getrusage(RUSAGE_THREAD)).
#include "workers/shadow_memory.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/proc_memory.h"
#include "workers/memory_baseline.h"

namespace sandbox::workers {
namespace {

constexpr std::uint32_t kImagePages = 8;
constexpr std::uint32_t kMaxPages = 32;

class ShadowReuse : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 rng(7);
    std::string bytes;
    std::vector<std::uint32_t> nonzero;
    for (std::uint32_t p = 0; p < kImagePages; ++p) {
      if (p == 3) continue;  // one zero page in the image
      nonzero.push_back(p);
      for (std::size_t i = 0; i < kWasmPageBytes; ++i) bytes.push_back(static_cast<char>(rng()));
    }
    base_ = make_server_base("test", kImagePages, nonzero, bytes);
    server_ = server_base_of(*base_);
  }
  // What a fresh shadow reset to (base, pages) holds.
  std::vector<std::uint8_t> expected(std::uint32_t pages) const {
    ShadowMemory fresh(std::uint64_t{kMaxPages} * kWasmPageBytes);
    fresh.reset(server_, pages);
    return {fresh.view().begin(), fresh.view().end()};
  }
  static std::vector<std::uint8_t> contents(const ShadowMemory& s) {
    return {s.view().begin(), s.view().end()};
  }

  std::shared_ptr<const SnapshotBase> base_;
  const ServerBase* server_ = nullptr;
};

TEST_F(ShadowReuse, AResetInPlaceEqualsAFreshShadowByteForByte) {
  ShadowMemory shadow(std::uint64_t{kMaxPages} * kWasmPageBytes);
  std::mt19937 rng(11);
  std::vector<std::uint8_t> block(kChangeBlockBytes);
  std::vector<std::uint8_t> page(kWasmPageBytes);
  for (int round = 0; round < 40; ++round) {
    const std::uint32_t pages = kImagePages + static_cast<std::uint32_t>(rng() % 12);
    shadow.reset(server_, pages);
    ASSERT_EQ(contents(shadow), expected(pages)) << "round " << round;
    // An instance's life: blocks, whole pages, growth and shrinking.
    for (int op = 0; op < 30; ++op) {
      const std::uint32_t kind = rng() % 10;
      if (kind == 0) {
        const int next = static_cast<int>(shadow.pages()) + static_cast<int>(rng() % 5) - 2;
        shadow.resize(static_cast<std::uint32_t>(std::clamp(next, 1, static_cast<int>(kMaxPages))));
      } else if (kind == 1) {
        for (auto& b : page) b = static_cast<std::uint8_t>(rng());
        shadow.write_page(static_cast<std::uint32_t>(rng() % shadow.pages()), page.data());
      } else {
        for (auto& b : block) b = static_cast<std::uint8_t>(rng());
        shadow.write_block(
            static_cast<std::uint32_t>(rng() % (shadow.pages() * kChangeBlocksPerPage)),
            block.data());
      }
    }
  }
}

TEST_F(ShadowReuse, NothingOfThePreviousInstanceSurvives) {
  ShadowMemory shadow(std::uint64_t{kMaxPages} * kWasmPageBytes);
  shadow.reset(server_, kImagePages);
  shadow.resize(kMaxPages);
  const std::vector<std::uint8_t> canary(kWasmPageBytes, 0xA5);
  for (std::uint32_t p = 0; p < kMaxPages; ++p) shadow.write_page(p, canary.data());
  shadow.reset(server_, kImagePages + 2);
  EXPECT_EQ(contents(shadow), expected(kImagePages + 2));
  shadow.resize(kMaxPages);  // grown again: the pages past the end are zero
  const auto all = contents(shadow);
  EXPECT_TRUE(std::all_of(all.begin() + std::size_t{kImagePages + 2} * kWasmPageBytes, all.end(),
                          [](std::uint8_t b) { return b == 0; }));
  // Reset without a base: all zero.
  shadow.reset(nullptr, 4);
  const auto zero = contents(shadow);
  EXPECT_TRUE(std::all_of(zero.begin(), zero.end(), [](std::uint8_t b) { return b == 0; }));
}

// The point of reusing a shadow: the blocks another instance made private cost no fault when
// the next instance writes them; a fresh shadow takes one per block.
TEST_F(ShadowReuse, WritingTheBlocksOfAPreviousInstanceAgainCostsNoFault) {
  const std::vector<std::uint8_t> bytes(kChangeBlockBytes, 0x5A);
  const auto write_blocks = [&](ShadowMemory& shadow) {
    const long before = testing_support::thread_minor_faults();
    for (std::uint32_t b = 0; b < kImagePages * kChangeBlocksPerPage; b += 3) {
      shadow.write_block(b, bytes.data());
    }
    return testing_support::thread_minor_faults() - before;
  };
  ShadowMemory shadow(std::uint64_t{kMaxPages} * kWasmPageBytes);
  shadow.reset(server_, kImagePages);
  EXPECT_GE(write_blocks(shadow), 40);  // 43 blocks, each copied on its first write
  shadow.reset(server_, kImagePages);
  EXPECT_EQ(contents(shadow), expected(kImagePages));
  EXPECT_EQ(write_blocks(shadow), 0);
}

// A restore writes its blocks in runs (write_blocks): the result is the same as writing each
// block on its own, and a later reset in place puts every one of them back.
TEST_F(ShadowReuse, WritingBlocksInRunsEqualsWritingEachBlock) {
  std::mt19937 rng(13);
  std::vector<std::uint32_t> blocks;
  for (std::uint32_t b = 0; b < (kImagePages + 4) * kChangeBlocksPerPage; ++b) {
    if (rng() % 3 != 0) blocks.push_back(b);  // runs of several blocks, and single ones
  }
  std::vector<std::uint8_t> bytes(blocks.size() * kChangeBlockBytes);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  ShadowMemory in_runs(std::uint64_t{kMaxPages} * kWasmPageBytes);
  ShadowMemory one_by_one(std::uint64_t{kMaxPages} * kWasmPageBytes);
  in_runs.reset(server_, kImagePages + 4);
  one_by_one.reset(server_, kImagePages + 4);
  in_runs.write_blocks(blocks, bytes.data());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    one_by_one.write_block(blocks[i], bytes.data() + i * kChangeBlockBytes);
  }
  EXPECT_EQ(contents(in_runs), contents(one_by_one));
  EXPECT_NE(contents(in_runs), expected(kImagePages + 4));
  in_runs.reset(server_, kImagePages + 4);
  EXPECT_EQ(contents(in_runs), expected(kImagePages + 4));
}

}  // namespace
}  // namespace sandbox::workers
