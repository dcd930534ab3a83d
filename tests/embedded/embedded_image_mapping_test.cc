// The image's two placements (src/embedded/image.h): mapped copy-on-write from a sealed memfd
// and copied (the fallback, forced with SANDBOX_IMAGE_MAPPING=copy), each held to the same
// tests: an accepted reset gives exactly the image's bytes, instances of one image are
// independent, memory that grew past the image goes back to the pool clean, and a session
// restored from a delta against the image equals one restored from the whole memory.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "embedded/abi_driver.h"
#include "embedded/image.h"
#include "embedded_test_util.h"
#include "snapshot/snapshot_error.h"
#include "support/image_delta.h"
#include "support/proc_memory.h"

namespace sandbox {
namespace {

using embedded::ImageMapping;
using namespace testing_embedded;
using testing_support::pagemap_entry;
using testing_support::rollup_kib;

// Sets SANDBOX_IMAGE_MAPPING for the lifetime of the guard (engines capture their image lazily,
// so the guard must span the first run or boot).
class MappingEnv {
 public:
  explicit MappingEnv(ImageMapping mapping) {
    if (const char* old = std::getenv(embedded::kImageMappingEnv)) old_ = old;
    if (mapping == ImageMapping::kCopy) {
      setenv(embedded::kImageMappingEnv, "copy", 1);
    } else {
      unsetenv(embedded::kImageMappingEnv);
    }
  }
  ~MappingEnv() {
    if (old_) {
      setenv(embedded::kImageMappingEnv, old_->c_str(), 1);
    } else {
      unsetenv(embedded::kImageMappingEnv);
    }
  }

 private:
  std::optional<std::string> old_;
};

std::string mapping_name(const ::testing::TestParamInfo<ImageMapping>& info) {
  return info.param == ImageMapping::kCopy ? "Copy" : "CopyOnWrite";
}

class ImageMappingTest : public ::testing::TestWithParam<ImageMapping> {
 protected:
  ImageMappingTest()
      : driver_(probe_module(), {}, {}),
        config_{.module = &probe_module(), .driver = &driver_, .fuel = kProbeFuel},
        image_(embedded::capture_image(config_, nullptr, 1'000'000'000, GetParam())) {}

  bool cow() const { return GetParam() == ImageMapping::kCopyOnWrite; }

  std::unique_ptr<embedded::Guest> applied() {
    auto guest = std::make_unique<embedded::Guest>(config_, WasiOptions{.workspace = &ws_});
    embedded::apply_image(*image_, *guest, false);
    EXPECT_EQ(embedded::maps_image(*image_, guest->instance()), cow());
    return guest;
  }

  GuestReply run(embedded::Guest& guest, const std::string& code) {
    guest.reset_fuel();
    return driver_.execute(guest, DriverRequest{code, {}, no_env_, true});
  }

  std::string text(embedded::Guest& guest, const std::string& code) {
    const GuestReply r = run(guest, code);
    if (r.error) return "error " + r.error->name;
    if (r.results.size() != 1 || !r.results[0].text) return "<no text result>";
    return *r.results[0].text;
  }

  // A context that set x to 5 and y to 6, zeroed its data and grew past the image, stored whole.
  StoredSnapshot stored_context(const Engine& engine) {
    auto a = engine.sessions->boot(SessionOptions{.workspace = &ws_});
    EXPECT_EQ(text_of(a->execute(req("set x 5\nzerodata\nalloc 2\nset y 6\nget x"))), "5");
    return StoredSnapshot::of(*a);
  }

  // What a restore of stored_context() must give back, through the guest (after_copy reseeds
  // each copy differently, so the memories are not compared whole).
  static void expect_stored_context(SessionInstance& s) {
    EXPECT_EQ(text_of(s.execute(req("get x"))), "5");
    EXPECT_EQ(text_of(s.execute(req("get y"))), "6");
    EXPECT_EQ(text_of(s.execute(req("datasum"))), "0");
  }

  // The image's bytes, page by page.
  std::vector<std::uint8_t> image_bytes() const {
    std::vector<std::uint8_t> out(std::size_t{image_->pages} * kWasmPageBytes, 0);
    for (std::uint32_t p = 0; p < image_->pages; ++p) {
      if (const std::uint8_t* bytes = image_->page_bytes[p]) {
        std::memcpy(out.data() + std::size_t{p} * kWasmPageBytes, bytes, kWasmPageBytes);
      }
    }
    return out;
  }

  ManualClock clock_;
  Workspace ws_{clock_};
  const std::map<std::string, std::string> no_env_;
  embedded::AbiDriver driver_;
  embedded::GuestConfig config_;
  std::shared_ptr<const embedded::Image> image_;
};

INSTANTIATE_TEST_SUITE_P(Both, ImageMappingTest,
                         ::testing::Values(ImageMapping::kCopyOnWrite, ImageMapping::kCopy),
                         mapping_name);

TEST_P(ImageMappingTest, TheImageIsPlacedAsRequested) {
  EXPECT_EQ(image_->copy_on_write(), cow());
  EXPECT_EQ(image_->data.empty() && image_->base.empty(), cow());
  auto guest = applied();
  const auto memory = guest->instance().memory();
  const auto expected = image_bytes();
  ASSERT_EQ(memory.size(), expected.size());
  EXPECT_EQ(std::memcmp(memory.data(), expected.data(), expected.size()), 0);
}

// A mapping that fails for one instance (here refused: the memory is tracked, and mapping would
// undo its protection) falls back to copying the image into it.
TEST_P(ImageMappingTest, AnInstanceThatCannotMapTheImageGetsACopy) {
  auto guest = std::make_unique<embedded::Guest>(config_, WasiOptions{.workspace = &ws_});
  wasm::Instance& instance = guest->instance();
  instance.prepare_restore(image_->pages);
  ASSERT_TRUE(instance.track_writes());
  embedded::place_image(*image_, instance);
  EXPECT_FALSE(embedded::maps_image(*image_, instance));
  const auto expected = image_bytes();
  ASSERT_EQ(instance.memory().size(), expected.size());
  EXPECT_EQ(std::memcmp(instance.memory().data(), expected.data(), expected.size()), 0);
}

TEST_P(ImageMappingTest, AResetAfterTheGuestScribbledGivesExactlyTheImageBytes) {
  auto guest = applied();
  const auto memory = guest->instance().memory();
  const std::vector<std::uint8_t> copy(memory.begin(), memory.end());
  EXPECT_FALSE(run(*guest, "set x 1\nzerodata\nprint hello").error);
  // And the host scribbles over a part of every page.
  for (std::size_t at = 0; at < memory.size(); at += kWasmPageBytes) {
    std::memset(memory.data() + at + 100, 0xa5, 5000);
  }
  ASSERT_TRUE(embedded::reset_to_image(*image_, *guest));
  ASSERT_EQ(guest->instance().memory().size(), copy.size());
  EXPECT_EQ(std::memcmp(guest->instance().memory().data(), copy.data(), copy.size()), 0);
  EXPECT_EQ(embedded::maps_image(*image_, guest->instance()), cow());
  // It runs like a fresh copy, and resets again.
  EXPECT_EQ(text(*guest, "get x"), "error KeyError");
  ASSERT_TRUE(embedded::reset_to_image(*image_, *guest));
  EXPECT_EQ(std::memcmp(guest->instance().memory().data(), copy.data(), copy.size()), 0);
}

TEST_P(ImageMappingTest, TwoInstancesOfOneImageDoNotSeeEachOthersWrites) {
  auto a = applied();
  auto b = applied();
  const auto expected = image_bytes();
  run(*a, "set x 1\nzerodata");
  std::memset(a->instance().memory().data(), 0x3c, a->instance().memory().size());
  const auto mb = b->instance().memory();
  EXPECT_EQ(std::memcmp(mb.data(), expected.data(), expected.size()), 0);
  run(*b, "set x 2");
  a.reset();
  EXPECT_EQ(text(*b, "get x"), "2");
}

TEST_P(ImageMappingTest, MemoryThatGrewPastTheImageGoesBackToThePoolClean) {
  wasm::MemoryPool pool(2);
  config_.pool = &pool;
  {
    auto grown = applied();
    EXPECT_FALSE(run(*grown, "alloc 3\nset x 1").error);
    EXPECT_GT(grown->instance().memory_pages(), image_->pages);
    EXPECT_FALSE(embedded::reset_to_image(*image_, *grown));  // grew: dropped, not reset
  }
  ASSERT_EQ(pool.cached(), 1u);
  auto reused = applied();  // the pooled reservation
  EXPECT_EQ(pool.cached(), 0u);
  const auto expected = image_bytes();
  const auto memory = reused->instance().memory();
  ASSERT_EQ(memory.size(), expected.size());
  EXPECT_EQ(std::memcmp(memory.data(), expected.data(), expected.size()), 0);
  EXPECT_EQ(text(*reused, "get x"), "error KeyError");
  EXPECT_EQ(text(*reused, "datasum"), text(*applied(), "datasum"));
  EXPECT_NE(text(*reused, "datasum"), "0");
}

// A snapshot stored as a delta from the image (the pages that differ, and some that do not) and
// the same snapshot stored whole restore to the same memory, under both placements.
TEST_P(ImageMappingTest, ASessionRestoredFromADeltaEqualsOneRestoredWhole) {
  const MappingEnv env(GetParam());
  const Engine engine = probe_engine();
  const auto base = engine.sessions->base();
  ASSERT_NE(base, nullptr);
  const StoredSnapshot whole = stored_context(engine);
  ASSERT_GT(whole.pages, base->pages);

  SnapshotSource delta = whole.source();
  delta.base_fingerprint = base->fingerprint;
  delta.base_delta_pages.emplace();
  // The pages that differ, and every fourth page anyway (as a stored chunk lists pages that
  // did not change).
  for (std::uint32_t p = 0; p < whole.pages; ++p) {
    const auto it = whole.data.find(p);
    const std::uint8_t* in_base = p < base->pages ? base->page_bytes[p] : nullptr;
    const bool differs =
        it == whole.data.end()
            ? in_base != nullptr
            : in_base == nullptr || std::memcmp(it->second.data(), in_base, kWasmPageBytes) != 0;
    if (differs || p % 4 == 0) delta.base_delta_pages->push_back(p);
  }
  ASSERT_LT(delta.base_delta_pages->size(), whole.pages);  // the delta skips something

  // Count the pages each restore reads.
  std::size_t reads = 0;
  const auto counted = [&reads](SnapshotSource source) {
    source.read_page = [&reads, read = source.read_page](std::uint32_t p) {
      ++reads;
      return read(p);
    };
    return source;
  };
  auto from_delta = engine.sessions->restore(SessionOptions{.workspace = &ws_}, counted(delta));
  EXPECT_EQ(reads, delta.base_delta_pages->size());  // only the delta's pages
  auto from_whole = engine.sessions->restore(SessionOptions{.workspace = &ws_}, whole.source());
  // A foreign fingerprint: every page is read instead (still correct).
  SnapshotSource foreign = delta;
  foreign.base_fingerprint = "not-the-image";
  reads = 0;
  auto from_foreign = engine.sessions->restore(SessionOptions{.workspace = &ws_}, counted(foreign));
  EXPECT_EQ(reads, whole.pages);
  const auto m_delta = from_delta->snapshot().memory;
  const auto m_whole = from_whole->snapshot().memory;
  const auto m_foreign = from_foreign->snapshot().memory;
  ASSERT_EQ(m_delta.size(), m_whole.size());
  ASSERT_EQ(m_foreign.size(), m_whole.size());
  for (SessionInstance* s : {from_delta.get(), from_whole.get(), from_foreign.get()}) {
    expect_stored_context(*s);
  }
}

// The delta of `stored` against `base` in 4 KiB blocks (SnapshotSource::base_delta_blocks): the
// blocks that differ from the base's (zero past it), their bytes, and the pages that hold them.
struct BlockDelta {
  std::vector<std::uint32_t> pages;
  std::vector<std::uint32_t> blocks;
  std::vector<std::uint8_t> bytes;
};

BlockDelta block_delta(const StoredSnapshot& stored, const SnapshotBase& base) {
  BlockDelta d;
  testing_support::for_each_block_off_the_image(
      base, stored.pages,
      [&](std::uint32_t p) -> const std::uint8_t* {
        const auto it = stored.data.find(p);
        return it == stored.data.end() ? nullptr : it->second.data();
      },
      [&](std::uint32_t p, std::uint32_t block, const std::uint8_t* bytes) {
        if (d.pages.empty() || d.pages.back() != p) d.pages.push_back(p);
        d.blocks.push_back(block);
        d.bytes.insert(d.bytes.end(), bytes, bytes + kSnapshotBlockBytes);
      });
  return d;
}

// A delta given in blocks (as a worker gets it from its server) is written as it comes, with no
// page read, and restores the same context as the whole memory does.
TEST_P(ImageMappingTest, ASessionRestoredFromDeltaBlocksEqualsOneRestoredWhole) {
  const MappingEnv env(GetParam());
  const Engine engine = probe_engine();
  const auto base = engine.sessions->base();
  ASSERT_NE(base, nullptr);
  const StoredSnapshot whole = stored_context(engine);
  ASSERT_GT(whole.pages, base->pages);
  const BlockDelta d = block_delta(whole, *base);
  ASSERT_FALSE(d.blocks.empty());

  SnapshotSource delta = whole.source();
  delta.base_fingerprint = base->fingerprint;
  delta.base_delta_pages = d.pages;
  delta.base_delta_blocks = SnapshotBlocks{d.blocks, d.bytes};
  std::size_t reads = 0;
  delta.read_page = [&reads, read = delta.read_page](std::uint32_t p) {
    ++reads;
    return read(p);
  };
  auto from_blocks = engine.sessions->restore(SessionOptions{.workspace = &ws_}, delta);
  EXPECT_EQ(reads, 0u);
  auto from_whole = engine.sessions->restore(SessionOptions{.workspace = &ws_}, whole.source());
  const auto m_blocks = from_blocks->snapshot().memory;
  ASSERT_EQ(m_blocks.size(), std::size_t{whole.pages} * kWasmPageBytes);
  // Each block sent holds its bytes, but the one whose random seed after_copy writes anew (the
  // rest is compared through the guest).
  std::size_t same = 0;
  for (std::size_t i = 0; i < d.blocks.size(); ++i) {
    same += std::memcmp(m_blocks.data() + std::size_t{d.blocks[i]} * kSnapshotBlockBytes,
                        d.bytes.data() + i * kSnapshotBlockBytes, kSnapshotBlockBytes) == 0;
  }
  EXPECT_GE(same + 1, d.blocks.size()) << same << " of " << d.blocks.size();
  for (SessionInstance* s : {from_blocks.get(), from_whole.get()}) expect_stored_context(*s);
}

// Blocks out of order, past the memory, or without their bytes are a SnapshotError, not a write
// out of bounds.
TEST_P(ImageMappingTest, DeltaBlocksOutOfOrderOrPastTheMemoryAreRefused) {
  const MappingEnv env(GetParam());
  const Engine engine = probe_engine();
  const auto base = engine.sessions->base();
  ASSERT_NE(base, nullptr);
  auto booted = engine.sessions->boot(SessionOptions{.workspace = &ws_});
  const StoredSnapshot stored = StoredSnapshot::of(*booted);
  const std::uint32_t past = stored.pages * (kWasmPageBytes / kSnapshotBlockBytes);
  const std::vector<std::uint8_t> two(2 * kSnapshotBlockBytes, 0x11);
  for (const std::vector<std::uint32_t>& blocks :
       {std::vector<std::uint32_t>{5, 3}, std::vector<std::uint32_t>{4, 4},
        std::vector<std::uint32_t>{3, past}, std::vector<std::uint32_t>{3}}) {
    SnapshotSource delta = stored.source();
    delta.base_fingerprint = base->fingerprint;
    delta.base_delta_pages = std::vector<std::uint32_t>{0};
    delta.base_delta_blocks = SnapshotBlocks{blocks, two};  // {3}: 1 block, 2 blocks' bytes
    EXPECT_THROW(engine.sessions->restore(SessionOptions{.workspace = &ws_}, delta), SnapshotError)
        << blocks.size() << " blocks, the last " << blocks.back();
  }
}

// A restored delta page that differs from the image in one 4 KiB block gets a private copy of
// that block only; its other 15 blocks stay the image's (mapped) pages: no copy, no memory.
TEST_P(ImageMappingTest, ARestoredPageCopiesOnlyTheBlocksThatDifferFromTheImage) {
  const MappingEnv env(GetParam());
  const Engine engine = probe_engine();
  const auto base = engine.sessions->base();
  ASSERT_NE(base, nullptr);
  auto booted = engine.sessions->boot(SessionOptions{.workspace = &ws_});
  StoredSnapshot stored = StoredSnapshot::of(*booted);
  std::uint32_t page = 0;
  while (page < base->pages && base->page_bytes[page] == nullptr) ++page;
  ASSERT_LT(page, base->pages);
  std::vector<std::uint8_t> changed(base->page_bytes[page],
                                    base->page_bytes[page] + kWasmPageBytes);
  changed[5 * 4096 + 7] ^= 0x5a;  // block 5 only
  stored.data[page] = changed;
  SnapshotSource delta = stored.source();
  delta.base_fingerprint = base->fingerprint;
  delta.base_delta_pages = std::vector<std::uint32_t>{page};
  auto restored = engine.sessions->restore(SessionOptions{.workspace = &ws_}, delta);
  const std::uint8_t* at = restored->snapshot().memory.data() + std::size_t{page} * kWasmPageBytes;
  EXPECT_EQ(std::memcmp(at, changed.data(), kWasmPageBytes), 0);
  if (!cow()) return;  // a copied image is private memory anyway
  for (std::size_t block = 0; block < kWasmPageBytes / 4096; ++block) {
    const std::uint64_t entry = pagemap_entry(at + block * 4096);
    ASSERT_NE(entry, ~std::uint64_t{0}) << "pagemap unreadable";
    const bool private_copy = (entry >> 63 & 1) != 0 && (entry >> 61 & 1) == 0;
    EXPECT_EQ(private_copy, block == 5) << "block " << block << " entry " << std::hex << entry;
  }
}

// Resident sessions that each ran a small execute hold the pages they wrote, not the image.
TEST(ImageMappingMemory, IdleSessionsShareTheImageInsteadOfEachHoldingACopy) {
  const MappingEnv env(ImageMapping::kCopyOnWrite);
  const Engine engine = probe_engine();
  const auto base = engine.sessions->base();
  ASSERT_NE(base, nullptr);
  std::uint64_t image_kib = 0;
  for (const std::uint8_t* p : base->page_bytes) image_kib += p != nullptr ? 64 : 0;
  ManualClock clock;
  Workspace ws(clock);
  constexpr int kSessions = 16;
  {
    auto warm = engine.sessions->boot(SessionOptions{.workspace = &ws});  // first-use costs
  }
  const std::uint64_t before = rollup_kib("Rss");
  std::vector<std::unique_ptr<SessionInstance>> idle;
  for (int i = 0; i < kSessions; ++i) {
    idle.push_back(engine.sessions->boot(SessionOptions{.workspace = &ws}));
    ASSERT_EQ(text_of(idle.back()->execute(req("set x 1\nget x"))), "1");
  }
  const std::uint64_t grown = rollup_kib("Rss") - std::min(rollup_kib("Rss"), before);
  EXPECT_LT(grown, kSessions * image_kib / 3) << kSessions << " sessions of a " << image_kib
                                              << " KiB image grew Rss by " << grown << " KiB";
}

TEST(ImageMappingDefault, TheEnvironmentForcesTheCopyingPath) {
  {
    const MappingEnv env(ImageMapping::kCopy);
    EXPECT_EQ(embedded::default_image_mapping(), ImageMapping::kCopy);
  }
  {
    const MappingEnv env(ImageMapping::kCopyOnWrite);
    EXPECT_EQ(embedded::default_image_mapping(), ImageMapping::kCopyOnWrite);
  }
}

}  // namespace
}  // namespace sandbox
