// The written pages of a step as SessionSnapshot reports them (include/sandbox/engine.h:
// `dirty_pages` in any order, perhaps repeated, and `dirty_blocks` when the engine knows which
// 4 KiB blocks of each it wrote), put in the form their users walk: ascending, once each, with
// the union of their blocks (docs/snapshot-format.md#change-detection).
//
// Thread-safety: a pure function over caller-owned data.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace sandbox {

// Every block of a page: what a page counts as written with when its blocks are not known.
inline constexpr std::uint16_t kAllBlocks = 0xFFFF;

struct WrittenPage {
  std::uint32_t page = 0;
  std::uint16_t blocks = kAllBlocks;  // bit b: bytes [b * 4 KiB, (b + 1) * 4 KiB) of the page
};

// The pages of `pages` below `limit`, ascending and once each, each with the union of its
// entries of `blocks` when that has one entry per page (kAllBlocks otherwise).
std::vector<WrittenPage> written_pages(const std::vector<std::uint32_t>& pages,
                                       std::span<const std::uint16_t> blocks, std::uint32_t limit);

}  // namespace sandbox
