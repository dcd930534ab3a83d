// A delta page stored as several zstd frames, each covering a run of its 4 KiB blocks, and the
// frames of the pages a context wrote lately, so that a later step compresses again only the
// blocks it changed (docs/snapshot-format.md#frames-of-a-delta-page).
//
// A page a step rewrites has often changed in a few of its blocks only (about 2 of 16 in a
// Ruby step, where the rest of the page has long drifted from the image and costs 50 us a page
// to compress). A stored row is its frames one after another, which a standard zstd decoder
// reads as one chunk. The first time a page is written it is one frame. When a later step
// changes some of its blocks, every frame holding a changed block is compressed again, split
// into runs of changed and of unchanged blocks; the other frames are copied. So the frames of a
// page end up small around the blocks that keep changing and large elsewhere (few frames: each
// costs about 10 bytes, and a small frame compresses a little worse).
//
// A block counts as unchanged when its memory hashes (page_hash.h, keyed) as when its frame was
// made: the XOR with the image that a frame holds is a function of the block's bytes as long
// as the image stays the same (clear() when it changes).
//
// Memory: the frames of the pages written in the last kDeltaFrameSteps steps, at most
// kMaxDeltaFrameBytes of them.
//
// Thread-safety: one instance per context, used under the context's lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "snapshot/chunk_codec.h"
#include "snapshot/page_hash.h"

namespace sandbox {

// The most compressed bytes one context keeps for its next steps (two Ruby steps).
inline constexpr std::size_t kMaxDeltaFrameBytes = std::size_t{512} * 1024;
// The frames of a page are kept while it was written in one of the last this many steps.
inline constexpr std::uint64_t kDeltaFrameSteps = 4;

class DeltaFrames {
 public:
  // The stored row of page `page`: the XOR of `memory` (the page's bytes) with `image` (the
  // image's page; null: zero) as frames of `codec`, where `blocks` are the hashes of the
  // memory page's 4 KiB blocks (see above). Only the blocks of the frames compressed again are
  // XORed.
  std::vector<std::uint8_t> encode(std::uint32_t page, const BlockHashes& blocks,
                                   std::span<const std::uint8_t, kSnapshotPageBytes> memory,
                                   const std::uint8_t* image, ChunkCodec& codec);
  // Ends a step: forgets the pages not written lately, and the older ones past
  // kMaxDeltaFrameBytes.
  void end_step();
  // Forgets everything (another image, or rows written another way).
  void clear();

  // For tests: blocks compressed (not copied) since construction, the frames `page` is stored
  // in (0: not kept), and the compressed bytes kept.
  std::uint64_t compressed_blocks() const { return compressed_blocks_; }
  std::size_t frames_of(std::uint32_t page) const;
  std::size_t bytes() const { return bytes_; }

 private:
  struct Frame {
    std::uint8_t first_block = 0;
    std::uint8_t end_block = 0;
    std::uint32_t offset = 0;  // in Page::row
    std::uint32_t size = 0;
  };
  struct Page {
    BlockHashes blocks{};
    std::vector<Frame> frames;  // ascending, covering all blocks
    std::vector<std::uint8_t> row;
    std::uint64_t step = 0;  // the step that last wrote it
  };
  // Appends the frame of blocks [first, end) of memory XOR image to `page`, compressed.
  void compress(Page& page, std::size_t first, std::size_t end,
                std::span<const std::uint8_t, kSnapshotPageBytes> memory, const std::uint8_t* image,
                ChunkCodec& codec);
  void forget(std::unordered_map<std::uint32_t, Page>::iterator it);

  std::unordered_map<std::uint32_t, Page> pages_;
  std::uint64_t step_ = kDeltaFrameSteps;
  std::size_t bytes_ = 0;
  std::uint64_t compressed_blocks_ = 0;
};

}  // namespace sandbox
