#include "snapshot/page_hash.h"

#include <stdexcept>
#include <string>

namespace sandbox {

std::optional<std::uint32_t> hash_page(std::span<const std::uint8_t, kSnapshotPageBytes> page) {
  std::uint32_t h = 0x811C9DC5u;
  std::uint32_t any = 0;
  const std::uint8_t* p = page.data();
  for (std::size_t i = 0; i < kSnapshotPageBytes; i += 4) {
    // Little-endian regardless of the host; compilers turn this into one load on x86/arm.
    const std::uint32_t w =
        static_cast<std::uint32_t>(p[i]) | (static_cast<std::uint32_t>(p[i + 1]) << 8) |
        (static_cast<std::uint32_t>(p[i + 2]) << 16) | (static_cast<std::uint32_t>(p[i + 3]) << 24);
    any |= w;
    h = (h ^ w) * 0x01000193u;
  }
  if (any == 0) return std::nullopt;
  return h;
}

PageHashes hash_memory(std::span<const std::uint8_t> memory) {
  if (memory.size() % kSnapshotPageBytes != 0) {
    throw std::invalid_argument("memory size " + std::to_string(memory.size()) +
                                " is not a multiple of 64 KiB");
  }
  PageHashes out;
  const std::size_t pages = memory.size() / kSnapshotPageBytes;
  for (std::size_t p = 0; p < pages; ++p) {
    const auto page = memory.subspan(p * kSnapshotPageBytes).first<kSnapshotPageBytes>();
    if (const auto h = hash_page(page))
      out.emplace_hint(out.end(), static_cast<std::uint32_t>(p), *h);
  }
  return out;
}

PageDiff diff_pages(const PageHashes& previous, const PageHashes& current) {
  PageDiff diff;
  for (const auto& [page, hash] : current) {
    const auto it = previous.find(page);
    if (it == previous.end() || it->second != hash) diff.changed.push_back(page);
  }
  for (const auto& [page, hash] : previous) {
    if (!current.contains(page)) diff.removed.push_back(page);
  }
  return diff;
}

}  // namespace sandbox
