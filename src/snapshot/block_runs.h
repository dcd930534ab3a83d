// Runs of adjacent 4 KiB blocks: a list of blocks walked as the runs it holds, so that each run
// is copied, sent or made private at once (docs/snapshot-format.md#restore).
//
// Thread-safety: a pure function over caller-owned data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "snapshot/page_hash.h"

namespace sandbox {

// Calls `f` with the bytes of `memory` under each run of adjacent blocks of `blocks`
// (ascending, each within `memory`; block b is bytes [b * kHashBlockBytes, (b + 1) *
// kHashBlockBytes)), in order: one copy or one frame part per run. `memory` may be writable
// (`Byte` not const), for a run written at once.
template <typename Byte, typename F>
void for_each_block_run(std::span<Byte> memory, std::span<const std::uint32_t> blocks, F&& f) {
  for (std::size_t i = 0; i < blocks.size();) {
    std::size_t j = i + 1;
    while (j < blocks.size() && blocks[j] == blocks[j - 1] + 1) ++j;
    f(memory.subspan(std::size_t{blocks[i]} * kHashBlockBytes, (j - i) * kHashBlockBytes));
    i = j;
  }
}

}  // namespace sandbox
