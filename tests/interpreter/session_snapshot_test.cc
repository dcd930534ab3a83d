// write_snapshot's usual step (docs/snapshot-format.md#snapshot-write): a delta from the
// engine's image, with write tracking, over real SQLite, driven by a hand-made instance whose
// memory and dirty-page reports the test controls.
#include <algorithm>
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

#include "interpreter/session_state.h"
#include "snapshot/chunk_codec.h"
#include "snapshot/delta.h"
#include "storage/sqlite/sqlite_stores.h"
#include "support/snapshot_reads.h"

namespace sandbox {
namespace {

constexpr std::uint32_t kPages = 6;
constexpr std::uint32_t kImagePages = 4;

// Memory the test writes directly; snapshot() reports whatever dirty list the test set.
class ScriptedInstance final : public SessionInstance {
 public:
  explicit ScriptedInstance(std::vector<std::uint8_t> memory) : memory(std::move(memory)) {}
  std::string cwd() const override { return "/workspace"; }
  bool invalid() const override { return false; }
  SessionOutcome execute(const ExecutionRequest&) override { return {}; }
  bool can_snapshot() const override { return true; }
  SessionSnapshot snapshot() override {
    SessionSnapshot snap{1, {}, memory, dirty, dirty_blocks};
    dirty.reset();
    dirty_blocks.clear();
    return snap;
  }
  void close() override {}

  std::vector<std::uint8_t> memory;
  std::optional<std::vector<std::uint32_t>> dirty;
  std::vector<std::uint16_t> dirty_blocks;
};

std::size_t nonzero_pages(const std::vector<std::uint8_t>& memory) {
  std::size_t n = 0;
  for (std::size_t at = 0; at < memory.size(); at += kSnapshotPageBytes) {
    n += std::any_of(memory.begin() + static_cast<std::ptrdiff_t>(at),
                     memory.begin() + static_cast<std::ptrdiff_t>(at + kSnapshotPageBytes),
                     [](std::uint8_t b) { return b != 0; });
  }
  return n;
}

class SessionSnapshotTest : public ::testing::Test {
 protected:
  SessionSnapshotTest()
      : dir_(std::filesystem::temp_directory_path() /
             ("session-snapshot-" + std::to_string(::getpid()))),
        image_(kImagePages * kSnapshotPageBytes, 0) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    storage_ = std::make_unique<SqliteStorage>((dir_ / "db").string(), SqliteOptions{});
    for (std::uint32_t p = 0; p < kImagePages; p += 2) {  // image pages 0 and 2 non-zero
      std::fill_n(image_.begin() + std::ptrdiff_t{p} * kSnapshotPageBytes, 64, 0x40 + p);
    }
    base_.fingerprint = "img";
    base_.pages = kImagePages;
    for (std::uint32_t p = 0; p < kImagePages; ++p) {
      base_.page_bytes.push_back(p % 2 == 0 ? image_.data() + std::size_t{p} * kSnapshotPageBytes
                                            : nullptr);
    }
    base_.page_hashes = hash_memory(image_);
    auto memory = image_;
    memory.resize(kPages * kSnapshotPageBytes, 0);
    instance_ = new ScriptedInstance(memory);
    resident_.context_id = "c";
    resident_.instance.reset(instance_);
    start_from_base(resident_, &base_);
    row_.id = "c";
    row_.cwd = "/workspace";
  }
  ~SessionSnapshotTest() override {
    resident_.instance.reset();
    storage_.reset();
    std::filesystem::remove_all(dir_);
  }

  void step(std::vector<std::uint32_t> dirty, std::vector<std::uint16_t> blocks = {}) {
    instance_->dirty = std::move(dirty);
    instance_->dirty_blocks = std::move(blocks);
    write_snapshot(storage_->interpreters(), "k", "b1", &base_, resident_, row_, 1);
  }
  std::uint8_t* page(std::uint32_t p) {
    return instance_->memory.data() + std::size_t{p} * kSnapshotPageBytes;
  }

  std::filesystem::path dir_;
  std::vector<std::uint8_t> image_;
  SnapshotBase base_;
  std::unique_ptr<SqliteStorage> storage_;
  ScriptedInstance* instance_ = nullptr;
  Resident resident_;
  ContextRow row_;
};

// An engine may list a dirty page more than once, in any order (engine.h): the record's page
// count and the stored rows stay exact.
TEST_F(SessionSnapshotTest, ADirtyPageListedTwiceIsCountedOnce) {
  page(1)[5] = 1;  // a zero page of the image becomes non-zero
  page(4)[9] = 2;  // a page past the image
  step({4, 1, 1, 4, 1});
  ASSERT_TRUE(row_.snapshot);
  EXPECT_EQ(row_.snapshot->page_count, nonzero_pages(instance_->memory));
  EXPECT_EQ(row_.snapshot->chunk_pages, kDeltaChunkPages);
  const StoredChunks rows = storage_->interpreters().read_chunks("k", "c");
  EXPECT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows.contains(1) && rows.contains(4));
  EXPECT_EQ(row_.snapshot->chunk_count, rows.size());

  page(1)[5] = 0;   // back to the image: its row goes
  page(0)[70] = 3;  // an image page changes
  step({1, 0, 1, 0});
  EXPECT_EQ(row_.snapshot->page_count, nonzero_pages(instance_->memory));
  const StoredChunks after = storage_->interpreters().read_chunks("k", "c");
  EXPECT_EQ(after.size(), 2u);
  EXPECT_TRUE(after.contains(0) && after.contains(4) && !after.contains(1));

  // Written, but as it was: nothing is rewritten.
  step({0, 4});
  EXPECT_EQ(storage_->interpreters().read_chunks("k", "c"), after);

  // What is stored reads back as the memory.
  SnapshotPageReader reader(*row_.snapshot, after, &base_);
  testing_support::expect_reads_back(reader, instance_->memory);
}

// With the written 4 KiB blocks of each dirty page reported (SessionSnapshot::dirty_blocks), a
// page hashed by the step before has only those blocks rehashed: over random steps (a block
// changed, changed back to the image, made zero, or written as it was) what is stored reads
// back as the memory, and the page count stays exact.
TEST_F(SessionSnapshotTest, StepsReportingWrittenBlocksStoreTheMemory) {
  std::uint32_t seed = 11;
  const auto next = [&seed] {
    seed = seed * 1'103'515'245U + 12'345U;
    return seed >> 8;
  };
  for (int round = 0; round < 120; ++round) {
    std::vector<std::uint32_t> dirty;
    std::vector<std::uint16_t> blocks;
    for (int n = 1 + static_cast<int>(next() % 4); n > 0; --n) {
      const std::uint32_t p = next() % kPages;
      const std::uint32_t b = next() % kBlocksPerPage;
      std::uint8_t* block = page(p) + std::size_t{b} * kHashBlockBytes;
      const std::uint32_t at = next() % kHashBlockBytes;
      switch (next() % 4) {
        case 0:  // back to the image (zero past it, or where the image page is zero)
          if (p < kImagePages && base_.page_bytes[p] != nullptr) {
            std::copy_n(base_.page_bytes[p] + std::size_t{b} * kHashBlockBytes, kHashBlockBytes,
                        block);
          } else {
            std::fill_n(block, kHashBlockBytes, 0);
          }
          break;
        case 1:  // written as it was
          break;
        default:
          block[at] = static_cast<std::uint8_t>(next());
      }
      dirty.push_back(p);
      blocks.push_back(static_cast<std::uint16_t>(1U << b));
    }
    step(dirty, blocks);
    ASSERT_EQ(row_.snapshot->page_count, nonzero_pages(instance_->memory)) << "round " << round;
    const StoredChunks rows = storage_->interpreters().read_chunks("k", "c");
    std::uint64_t stored = 0;
    for (const auto& [chunk, data] : rows) stored += data.size();
    ASSERT_EQ(row_.snapshot->encoded_bytes, stored) << "round " << round;
    SnapshotPageReader reader(*row_.snapshot, rows, &base_);
    testing_support::expect_reads_back(reader, instance_->memory);
    if (::testing::Test::HasFailure()) FAIL() << "round " << round;
  }
}

}  // namespace
}  // namespace sandbox
