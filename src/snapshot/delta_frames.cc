#include "snapshot/delta_frames.h"

#include <iterator>
#include <utility>

#include "snapshot/delta.h"

namespace sandbox {

void DeltaFrames::compress(Page& page, std::size_t first, std::size_t end,
                           std::span<const std::uint8_t, kSnapshotPageBytes> memory,
                           const std::uint8_t* image, ChunkCodec& codec) {
  const auto offset = static_cast<std::uint32_t>(page.row.size());
  const std::size_t at = first * kHashBlockBytes;
  const std::size_t bytes = (end - first) * kHashBlockBytes;
  if (image == nullptr) {
    codec.encode_append(memory.subspan(at, bytes), page.row);  // XOR with zero
  } else {
    // One page buffer per thread, like the codec's: a step allocates none.
    thread_local std::vector<std::uint8_t> delta(kSnapshotPageBytes);
    (void)xor_of(delta.data(), memory.data() + at, image + at, bytes);
    codec.encode_append(std::span<const std::uint8_t>(delta.data(), bytes), page.row);
  }
  page.frames.push_back(Frame{static_cast<std::uint8_t>(first), static_cast<std::uint8_t>(end),
                              offset, static_cast<std::uint32_t>(page.row.size() - offset)});
  compressed_blocks_ += end - first;
}

std::vector<std::uint8_t> DeltaFrames::encode(
    std::uint32_t page, const BlockHashes& blocks,
    std::span<const std::uint8_t, kSnapshotPageBytes> memory, const std::uint8_t* image,
    ChunkCodec& codec) {
  Page now;
  now.blocks = blocks;
  now.step = step_;
  const auto it = pages_.find(page);
  if (it == pages_.end()) {
    compress(now, 0, kBlocksPerPage, memory, image, codec);
  } else {
    const Page& before = it->second;
    const auto changed = [&](std::size_t b) { return before.blocks[b] != blocks[b]; };
    for (const Frame& f : before.frames) {
      bool any = false;
      for (std::size_t b = f.first_block; b < f.end_block && !any; ++b) any = changed(b);
      if (!any) {
        const auto offset = static_cast<std::uint32_t>(now.row.size());
        now.row.insert(now.row.end(), before.row.begin() + f.offset,
                       before.row.begin() + f.offset + f.size);
        now.frames.push_back(Frame{f.first_block, f.end_block, offset, f.size});
        continue;
      }
      // Runs of changed and of unchanged blocks, each its own frame from now on.
      std::size_t start = f.first_block;
      for (std::size_t b = start + 1; b <= f.end_block; ++b) {
        if (b == f.end_block || changed(b) != changed(start)) {
          compress(now, start, b, memory, image, codec);
          start = b;
        }
      }
    }
    bytes_ -= before.row.size();
  }
  std::vector<std::uint8_t> row = now.row;
  bytes_ += now.row.size();
  pages_.insert_or_assign(page, std::move(now));
  return row;
}

std::size_t DeltaFrames::frames_of(std::uint32_t page) const {
  const auto it = pages_.find(page);
  return it == pages_.end() ? 0 : it->second.frames.size();
}

void DeltaFrames::forget(std::unordered_map<std::uint32_t, Page>::iterator it) {
  bytes_ -= it->second.row.size();
  pages_.erase(it);
}

void DeltaFrames::end_step() {
  for (std::uint64_t oldest = step_ - kDeltaFrameSteps + 1; oldest <= step_; ++oldest) {
    // Pages written before `oldest` go, the oldest first, until within the limits.
    for (auto it = pages_.begin(); it != pages_.end();) {
      auto next = std::next(it);
      if (it->second.step < oldest) forget(it);
      it = next;
    }
    if (bytes_ <= kMaxDeltaFrameBytes) break;
  }
  if (bytes_ > kMaxDeltaFrameBytes) clear();
  ++step_;
}

void DeltaFrames::clear() {
  pages_.clear();
  bytes_ = 0;
  ++step_;
}

}  // namespace sandbox
