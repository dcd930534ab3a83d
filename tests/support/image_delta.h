// The 4 KiB blocks in which a memory differs from an engine's image (SnapshotBase): what a delta
// restore sends (docs/snapshot-format.md#restore), for tests that build one by hand.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <sandbox/engine.h>

#include "snapshot/delta.h"

namespace sandbox::testing_support {

// Calls `changed(page, block, bytes)`, ascending, for each 4 KiB block of a memory of `pages` 64
// KiB pages whose bytes differ from the image's (zeros where the image has no page): `block`
// counts from the memory's start, `bytes` are the memory's. `page_at(page)` gives a page's 64
// KiB, or null for a page of zeros.
template <typename PageAt, typename Changed>
void for_each_block_off_the_image(const SnapshotBase& base, std::uint32_t pages, PageAt&& page_at,
                                  Changed&& changed) {
  static const std::vector<std::uint8_t> zero(kWasmPageBytes, 0);
  constexpr std::uint32_t kBlocks = kWasmPageBytes / kSnapshotBlockBytes;
  for (std::uint32_t p = 0; p < pages; ++p) {
    const std::uint8_t* have = page_at(p);
    if (have == nullptr) have = zero.data();
    const std::uint8_t* image = base_page(base, p);
    if (image == nullptr) image = zero.data();
    for (std::uint32_t b = 0; b < kBlocks; ++b) {
      const std::size_t at = std::size_t{b} * kSnapshotBlockBytes;
      if (std::memcmp(have + at, image + at, kSnapshotBlockBytes) != 0) {
        changed(p, p * kBlocks + b, have + at);
      }
    }
  }
}

}  // namespace sandbox::testing_support
