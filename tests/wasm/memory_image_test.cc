// Copy-on-write memory images (src/wasm/memory_image.h): a mapped image reads exactly as its
// bytes, resets to them after any writes (also past the image after growth), instances sharing
// an image do not see each other's writes, write tracking and the pool keep working, and idle
// instances share the image's pages instead of each holding a copy.
#include "wasm/memory_image.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "support/proc_memory.h"
#include "test_host.h"
#include "wasm/uffd_tracking.h"

namespace sandbox::wasm {
namespace {

using testing_support::pagemap_entry;
using testing_support::smaps_kib_in;

using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

constexpr std::uint32_t kPage = 65536;

// An image of `pages` pages: a pattern, with whole zero pages and zero 4 KiB pages inside
// non-zero ones (the file's holes).
std::vector<std::uint8_t> pattern_image(std::uint32_t pages) {
  std::vector<std::uint8_t> bytes(std::size_t{pages} * kPage, 0);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::size_t page = i / kPage;
    const std::size_t small = (i % kPage) / 4096;
    if (page % 5 == 3 || small == 7) continue;
    bytes[i] = static_cast<std::uint8_t>((i * 2654435761u >> 13) | 1);
  }
  return bytes;
}

struct ImageFd {
  int fd;
  explicit ImageFd(const std::vector<std::uint8_t>& bytes)
      : fd(sandbox_wasm_image_create(bytes.data(), bytes.size())) {}
  ~ImageFd() {
    if (fd >= 0) close(fd);
  }
};

// A fresh instance grown to `pages` with the image mapped over its start.
std::unique_ptr<Instance> mapped(const Module& m, TestEnv& env, const ImageFd& image,
                                 std::uint32_t pages, InstanceOptions options = {}) {
  auto inst = make_instance(m, env, options);
  inst->prepare_restore(pages);
  EXPECT_EQ(sandbox_wasm_map_image(inst->rt_memory(), image.fd, std::size_t{pages} * kPage), 0);
  return inst;
}

bool equals(std::span<const std::uint8_t> memory, const std::vector<std::uint8_t>& bytes) {
  return memory.size() >= bytes.size() &&
         std::memcmp(memory.data(), bytes.data(), bytes.size()) == 0;
}

bool zero(std::span<const std::uint8_t> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

TEST(MemoryImage, TheFileIsSealedAgainstEveryChange) {
  const auto bytes = pattern_image(4);
  ImageFd image(bytes);
  ASSERT_GE(image.fd, 0);
  const std::uint8_t b = 1;
  EXPECT_EQ(pwrite(image.fd, &b, 1, 0), -1);
  EXPECT_NE(ftruncate(image.fd, 0), 0);
  EXPECT_NE(ftruncate(image.fd, 8 * kPage), 0);
  EXPECT_EQ(sandbox_wasm_image_create(bytes.data(), 1000), -1);  // not whole pages
}

// Resets both ways: dropping the private pages (no bytes given) and rewriting the written ones.
class MemoryImageReset : public ::testing::TestWithParam<bool> {
 protected:
  int reset(Instance& inst, const std::vector<std::uint8_t>& bytes) {
    return sandbox_wasm_reset_mapped_image(inst.rt_memory(), GetParam() ? bytes.data() : nullptr);
  }
};

INSTANTIATE_TEST_SUITE_P(Both, MemoryImageReset, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "RewriteWritten" : "DropPrivate";
                         });

TEST_P(MemoryImageReset, AResetAfterScribblingGivesExactlyTheImageBytes) {
  Module m = plain_module();
  TestEnv env;
  const std::uint32_t pages = 24;
  const auto bytes = pattern_image(pages);
  ImageFd image(bytes);
  ASSERT_GE(image.fd, 0);
  auto inst = mapped(m, env, image, pages);
  EXPECT_EQ(sandbox_wasm_mapped_image_bytes(inst->rt_memory()), std::size_t{pages} * kPage);
  ASSERT_TRUE(equals(inst->memory(), bytes));

  // Guest stores on some pages, host writes over others (including holes and zero pages).
  for (std::uint32_t p = 0; p < pages; p += 3) {
    inst->call<void(std::uint32_t, std::uint32_t)>("store", p * kPage + 7 * 4096 + 12, 0xdeadbeef);
  }
  std::memset(inst->memory().data() + 3 * kPage, 0x5a, 2 * kPage);
  ASSERT_FALSE(equals(inst->memory(), bytes));
  ASSERT_EQ(reset(*inst, bytes), 0);
  EXPECT_TRUE(equals(inst->memory(), bytes));
  // Still writable after the reset, and reset again.
  inst->call<void(std::uint32_t, std::uint32_t)>("store", 5 * kPage, 1);
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", 5 * kPage).value), 1u);
  ASSERT_EQ(reset(*inst, bytes), 0);
  EXPECT_TRUE(equals(inst->memory(), bytes));
}

TEST_P(MemoryImageReset, GrowthPastTheImageStaysAnonymousAndResetsToZero) {
  Module m = plain_module();
  TestEnv env;
  const std::uint32_t pages = 16;
  const auto bytes = pattern_image(pages);
  ImageFd image(bytes);
  auto inst = mapped(m, env, image, pages);
  ASSERT_EQ((inst->call<std::uint32_t(std::uint32_t)>("grow", 4).value), pages);
  const std::uint32_t beyond = pages * kPage;
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", beyond + 3 * kPage).value), 0u);
  inst->call<void(std::uint32_t, std::uint32_t)>("store", beyond + 3 * kPage, 42);
  inst->call<void(std::uint32_t, std::uint32_t)>("store", kPage, 43);
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", beyond + 3 * kPage).value), 42u);
  // Past the grown size still traps.
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", beyond + 4 * kPage).trap.kind),
            TrapKind::kOutOfBounds);
  ASSERT_EQ(reset(*inst, bytes), 0);
  EXPECT_EQ(inst->memory_pages(), pages + 4);
  EXPECT_TRUE(equals(inst->memory(), bytes));
  EXPECT_TRUE(zero(inst->memory().subspan(beyond)));
}

TEST_P(MemoryImageReset, TwoInstancesOfOneImageDoNotSeeEachOthersWrites) {
  Module m = plain_module();
  TestEnv env;
  const std::uint32_t pages = 8;
  const auto bytes = pattern_image(pages);
  ImageFd image(bytes);
  auto a = mapped(m, env, image, pages);
  auto b = mapped(m, env, image, pages);
  std::memset(a->memory().data(), 0x11, a->memory().size());
  a->call<void(std::uint32_t, std::uint32_t)>("store", 2 * kPage, 5);
  EXPECT_TRUE(equals(b->memory(), bytes));
  b->call<void(std::uint32_t, std::uint32_t)>("store", 2 * kPage, 6);
  EXPECT_EQ((a->call<std::uint32_t(std::uint32_t)>("load", 2 * kPage).value), 5u);
  a.reset();  // unmapping one instance leaves the other's view alone
  EXPECT_EQ((b->call<std::uint32_t(std::uint32_t)>("load", 2 * kPage).value), 6u);
  ASSERT_EQ(reset(*b, bytes), 0);
  EXPECT_TRUE(equals(b->memory(), bytes));
}

// A reset finds the pages written since the mapping with PAGEMAP_SCAN where the kernel has it
// (write tracking needs it too: sandbox_uffd_available probes it), and otherwise by reading
// pagemap's entries; both find the same pages, and the scan takes one call where the reads take
// one per 512 pages.
TEST(MemoryImage, AResetFindsTheWrittenPagesWithPagemapScanAndWithPagemapReads) {
  Module m = plain_module();
  TestEnv env;
  const std::uint32_t pages = 64;  // 1,024 small pages: two pagemap reads
  const auto bytes = pattern_image(pages);
  ImageFd image(bytes);
  auto inst = mapped(m, env, image, pages);
  // Runs of written pages, single pages, read-only pages between them, and a hole of the file.
  const auto scribble = [&](std::uint8_t value) {
    std::memset(inst->memory().data() + 2 * kPage, value, 3 * 4096);
    for (std::uint32_t p = 0; p < pages; p += 7) {
      inst->call<void(std::uint32_t, std::uint32_t)>("store", p * kPage + 5 * 4096 + 8, value);
      (void)inst->call<std::uint32_t(std::uint32_t)>("load", p * kPage + 9 * 4096);
    }
    inst->memory()[std::size_t{3} * kPage + 4096] = value;  // a zero page of the image (a hole)
    inst->memory()[inst->memory().size() - 1] = value;
  };
  // The memory's private 4 KiB pages, as pagemap says: a reset that copied over a page it only
  // read would make one more (and cost the page's sharing with the other instances).
  const auto private_pages = [&] {
    std::ptrdiff_t n = 0;
    for (std::size_t at = 0; at < inst->memory().size(); at += 4096) {
      const std::uint64_t e = pagemap_entry(inst->memory().data() + at);
      EXPECT_NE(e, ~std::uint64_t{0}) << "pagemap unreadable";
      if ((e >> 62) != 0 && (e & (std::uint64_t{1} << 61)) == 0) ++n;  // present or swapped
    }
    return n;
  };
  struct Way {
    int scan;
    std::uint64_t calls = 0;
    std::ptrdiff_t private_after = 0;
  };
  // Reads first: a scan that copied over more pages than the reads would leave more private.
  std::vector<Way> ways{{0}, {1}, {0}, {1}};
  for (Way& way : ways) {
    sandbox_wasm_image_use_pagemap_scan(way.scan);
    scribble(static_cast<std::uint8_t>(0x40 + way.scan));
    ASSERT_FALSE(equals(inst->memory(), bytes));
    const std::uint64_t before = sandbox_wasm_image_pagemap_calls();
    ASSERT_EQ(sandbox_wasm_reset_mapped_image(inst->rt_memory(), bytes.data()), 0);
    way.calls = sandbox_wasm_image_pagemap_calls() - before;
    way.private_after = private_pages();
    EXPECT_TRUE(equals(inst->memory(), bytes)) << "scan " << way.scan;
  }
  sandbox_wasm_image_use_pagemap_scan(1);
  for (const Way& way : ways) {
    EXPECT_EQ(way.private_after, ways[0].private_after) << "scan " << way.scan;
  }
  EXPECT_GE(ways[0].private_after, 15);  // what scribble writes
  EXPECT_EQ(ways[0].calls, 2U);          // pagemap read in two batches of 512 entries
  if (sandbox_uffd_available() != 0) {
    EXPECT_EQ(ways[1].calls, 1U);
    EXPECT_EQ(ways[3].calls, 1U);
  }
}

TEST(MemoryImage, WriteTrackingWorksOnAMappedMemoryAndBlocksAReset) {
  Module m = plain_module();
  TestEnv env;
  const std::uint32_t pages = 8;
  const auto bytes = pattern_image(pages);
  ImageFd image(bytes);
  auto inst = mapped(m, env, image, pages);
  ASSERT_TRUE(inst->track_writes());
  EXPECT_EQ(inst->take_dirty_pages(), std::vector<std::uint32_t>{});
  inst->call<void(std::uint32_t, std::uint32_t)>("store", 6 * kPage + 4, 77);
  inst->memory()[std::size_t{1} * kPage] = 9;  // host write
  EXPECT_EQ(inst->take_dirty_pages(), (std::vector<std::uint32_t>{1, 6}));
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", 6 * kPage + 4).value), 77u);
  // A tracked memory is neither reset nor mapped again (both change protections).
  EXPECT_EQ(sandbox_wasm_reset_mapped_image(inst->rt_memory(), nullptr), -1);
  EXPECT_EQ(sandbox_wasm_reset_mapped_image(inst->rt_memory(), bytes.data()), -1);
  EXPECT_EQ(inst->memory()[std::size_t{1} * kPage], 9);
}

TEST(MemoryImage, APooledMemoryThatMappedAnImageComesBackZero) {
  const std::uint64_t before = live_memory_reservations();
  {
    Module m = plain_module();
    TestEnv env;
    MemoryPool pool(2);
    const std::uint32_t small_pages = 4;  // under the pool's memset limit
    const std::uint32_t large_pages = 40;
    const auto small_bytes = pattern_image(small_pages);
    const auto large_bytes = pattern_image(large_pages);
    ImageFd small(small_bytes);
    ImageFd large(large_bytes);
    {
      auto a = mapped(m, env, small, small_pages, {.pool = &pool});
      auto b = mapped(m, env, large, large_pages, {.pool = &pool});
      b->call<std::uint32_t(std::uint32_t)>("grow", 3);
      b->call<void(std::uint32_t, std::uint32_t)>("store", (large_pages + 2) * kPage, 8);
    }
    ASSERT_EQ(pool.cached(), 2u);
    for (int i = 0; i < 2; ++i) {
      auto inst = make_instance(m, env, {.pool = &pool});
      const std::uint32_t initial = inst->memory_pages();
      EXPECT_EQ(sandbox_wasm_mapped_image_bytes(inst->rt_memory()), 0u);
      inst->prepare_restore(large_pages + 3);
      // Zero everywhere except what instantiation wrote (the guest's data segments).
      EXPECT_TRUE(zero(inst->memory().subspan(std::size_t{initial} * kPage)));
      EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", (large_pages + 2) * kPage).value),
                0u);
      EXPECT_EQ(
          (inst->call<std::uint32_t(std::uint32_t)>("load", (large_pages + 3) * kPage).trap.kind),
          TrapKind::kOutOfBounds);
    }
  }
  EXPECT_EQ(live_memory_reservations(), before);
}

TEST(MemoryImage, IdleInstancesShareTheImageInsteadOfEachHoldingACopy) {
  Module m = plain_module();
  TestEnv env;
  const std::uint32_t pages = 256;  // 16 MiB
  const std::size_t image_kib = std::size_t{pages} * kPage / 1024;
  constexpr int kInstances = 8;
  const auto bytes = pattern_image(pages);
  ImageFd image(bytes);
  ASSERT_GE(image.fd, 0);
  {
    // Warm the image's pages into the page cache once, outside the measurement.
    auto warm = mapped(m, env, image, pages);
    ASSERT_TRUE(equals(warm->memory(), bytes));
  }
  std::vector<std::unique_ptr<Instance>> idle;
  for (int i = 0; i < kInstances; ++i) idle.push_back(mapped(m, env, image, pages));
  // Counted over the instances' memories only: the whole process's figures also move with what
  // the allocator and (under ASan) the shadow memory do meanwhile, by up to the image's size.
  const auto instances_kib = [&idle](const std::string& field) {
    std::uint64_t kib = 0;
    for (const auto& inst : idle) {
      kib += smaps_kib_in(field, inst->memory().data(), inst->memory().size());
    }
    return kib;
  };
  // Mapped and not touched: the instances cost page tables, not pages.
  const std::uint64_t rss_idle = instances_kib("Rss");
  EXPECT_LT(rss_idle, image_kib / 2) << "Rss of " << kInstances << " untouched instances of a "
                                     << image_kib << " KiB image: " << rss_idle << " KiB";

  // Every instance reads all of the image and writes one page: the pages read are shared (each
  // counts once in Pss however many instances map it), only the written ones are private.
  for (auto& inst : idle) {
    ASSERT_TRUE(equals(inst->memory(), bytes));
    inst->call<void(std::uint32_t, std::uint32_t)>("store", 9 * kPage, 1);
  }
  const std::uint64_t pss_read = instances_kib("Pss");
  EXPECT_LT(pss_read, kInstances * image_kib / 4)
      << "Pss of " << kInstances << " instances of a " << image_kib
      << " KiB image, each read whole: " << pss_read << " KiB";
  // And the figure is not vacuous: the image was read, so its pages are resident and counted.
  EXPECT_GE(pss_read, image_kib / 2) << "Pss " << pss_read << " KiB";
}

}  // namespace
}  // namespace sandbox::wasm
