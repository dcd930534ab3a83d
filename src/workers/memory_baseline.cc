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
  Own& page = own(block / kChangeBlocksPerPage);
  const std::uint32_t b = block % kChangeBlocksPerPage;
  page.hashes[b] =
      hash_block(std::span<const std::uint8_t, kHashBlockBytes>(bytes, kHashBlockBytes));
  page.unhashed &= static_cast<std::uint16_t>(~(1U << b));
}

const BlockHashes& MemoryBaseline::expected(std::uint32_t page) const {
  if (const auto it = own_.find(page); it != own_.end()) return it->second.hashes;
  if (image_ && page < image_->pages.size()) return image_->pages[page];
  return zero_blocks();
}

MemoryBaseline::Own& MemoryBaseline::own(std::uint32_t page) {
  auto it = own_.find(page);
  if (it == own_.end()) it = own_.emplace(page, Own{expected(page), 0}).first;
  return it->second;
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
    for (std::uint32_t p = 0; p < pages; ++p) hash_page(page_at(p), own_[p].hashes);
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
  const bool blocks_named = written && written_blocks.size() == written->size();
  std::vector<std::uint32_t> changed;
  BlockHashes now;
  for (const auto& [p, mask] : look) {
    if (blocks_named) {
      // The blocks the engine wrote travel as they are.
      for (std::uint32_t b = 0; b < kChangeBlocksPerPage; ++b) {
        if ((mask & (1U << b)) != 0) changed.push_back(p * kChangeBlocksPerPage + b);
      }
      if (mask != 0) own(p).unhashed |= mask;
      continue;
    }
    // Blocks not written are as the server has them: only the written ones are hashed.
    const auto it = own_.find(p);
    const std::uint16_t unhashed = it == own_.end() ? 0 : it->second.unhashed;
    const BlockHashes& before = expected(p);
    now = before;
    rehash_blocks(page_at(p), mask, now);
    bool any = false;
    for (std::uint32_t b = 0; b < kChangeBlocksPerPage; ++b) {
      if (now[b] != before[b] || (unhashed & mask & (1U << b)) != 0) {
        changed.push_back(p * kChangeBlocksPerPage + b);
        any = true;
      }
    }
    if (any || (unhashed & mask) != 0) {
      Own& page = own(p);
      page.hashes = now;
      page.unhashed &= static_cast<std::uint16_t>(~mask);
    }
  }
  return changed;
}

}  // namespace sandbox::workers
