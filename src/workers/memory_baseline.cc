#include "workers/memory_baseline.h"

#include "snapshot/dirty_blocks.h"

namespace sandbox::workers {
namespace {

using PageSpan = std::span<const std::uint8_t, kSnapshotPageBytes>;

const BlockHashes& zero_blocks() {
  static const BlockHashes hashes = [] {
    static const std::vector<std::uint8_t> zero(kSnapshotPageBytes, 0);
    BlockHashes h{};
    hash_page(PageSpan(zero.data(), kSnapshotPageBytes), h);
    return h;
  }();
  return hashes;
}

}  // namespace

std::shared_ptr<const ImageBlockHashes> hash_image_blocks(const SnapshotBase& base) {
  auto image = std::make_shared<ImageBlockHashes>();
  image->fingerprint = base.fingerprint;
  image->pages.resize(base.pages, zero_blocks());
  for (std::uint32_t p = 0; p < base.pages && p < base.page_bytes.size(); ++p) {
    if (const std::uint8_t* bytes = base.page_bytes[p]) {
      hash_page(PageSpan(bytes, kSnapshotPageBytes), image->pages[p]);
    }
  }
  return image;
}

void MemoryBaseline::start(std::shared_ptr<const ImageBlockHashes> image, std::uint32_t pages) {
  known_ = true;
  image_ = std::move(image);
  pages_ = pages;
  own_.clear();
}

void MemoryBaseline::set_block(std::uint32_t block, const std::uint8_t* bytes) {
  const std::uint32_t page = block / kChangeBlocksPerPage;
  auto it = own_.find(page);
  if (it == own_.end()) it = own_.emplace(page, expected(page)).first;
  it->second[block % kChangeBlocksPerPage] =
      hash_block(std::span<const std::uint8_t, kHashBlockBytes>(bytes, kHashBlockBytes));
}

const BlockHashes& MemoryBaseline::expected(std::uint32_t page) const {
  if (const auto it = own_.find(page); it != own_.end()) return it->second;
  if (image_ && page < image_->pages.size()) return image_->pages[page];
  return zero_blocks();
}

std::optional<std::vector<std::uint32_t>> MemoryBaseline::take_changes(
    std::span<const std::uint8_t> memory, const std::optional<std::vector<std::uint32_t>>& written,
    std::span<const std::uint16_t> written_blocks) {
  const auto pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  const auto page_at = [&](std::uint32_t p) {
    return PageSpan(memory.data() + std::size_t{p} * kSnapshotPageBytes, kSnapshotPageBytes);
  };
  if (!known_ || pages < pages_) {
    // The server takes every page; the baseline is the memory as sent.
    start(nullptr, pages);
    for (std::uint32_t p = 0; p < pages; ++p) hash_page(page_at(p), own_[p]);
    return std::nullopt;
  }
  // Pages past the old end are zero in the server's copy (it grows with zeros), as here.
  pages_ = pages;
  // The pages to look at, ascending and once each, with the blocks of each that may differ.
  std::vector<WrittenPage> look;
  if (written) {
    look = written_pages(*written, written_blocks, pages);
  } else {
    look.reserve(pages);
    for (std::uint32_t p = 0; p < pages; ++p) look.push_back({p, kAllBlocks});
  }
  std::vector<std::uint32_t> changed;
  BlockHashes now;
  for (const auto& [p, mask] : look) {
    // Blocks not written are as the server has them: only the written ones are hashed.
    const BlockHashes& before = expected(p);
    now = before;
    rehash_blocks(page_at(p), mask, now);
    bool any = false;
    for (std::uint32_t b = 0; b < kChangeBlocksPerPage; ++b) {
      if (now[b] != before[b]) {
        changed.push_back(p * kChangeBlocksPerPage + b);
        any = true;
      }
    }
    if (any) own_[p] = now;
  }
  return changed;
}

}  // namespace sandbox::workers
