#include "snapshot/delta.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "base/recycled_buffer.h"
#include "snapshot/snapshot_error.h"

namespace sandbox {

bool xor_of(std::uint8_t* dst, const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  std::uint64_t any = 0;
  std::size_t i = 0;
  for (; i + sizeof(std::uint64_t) <= n; i += sizeof(std::uint64_t)) {
    std::uint64_t x;
    std::uint64_t y;
    std::memcpy(&x, a + i, sizeof x);
    std::memcpy(&y, b + i, sizeof y);
    x ^= y;
    any |= x;
    std::memcpy(dst + i, &x, sizeof x);
  }
  for (; i < n; ++i) {
    dst[i] = static_cast<std::uint8_t>(a[i] ^ b[i]);
    any |= dst[i];
  }
  return any != 0;
}

const std::uint8_t* base_page(const SnapshotBase& base, std::uint32_t page) {
  if (page >= base.pages || page >= base.page_bytes.size()) return nullptr;
  return base.page_bytes[page];
}

bool delta_chunk(std::span<const std::uint8_t> memory, const SnapshotBase& base,
                 std::uint32_t chunk, std::span<std::uint8_t> out, std::uint32_t chunk_pages) {
  if (!valid_chunk_pages(chunk_pages) || out.size() != chunk_pages * kSnapshotPageBytes) {
    throw std::invalid_argument("delta_chunk needs one chunk");
  }
  bool differs = false;
  for (std::uint32_t i = 0; i < chunk_pages; ++i) {
    const std::uint64_t page = std::uint64_t{chunk} * chunk_pages + i;
    std::uint8_t* dst = out.data() + std::size_t{i} * kSnapshotPageBytes;
    const std::uint64_t at = page * kSnapshotPageBytes;
    const std::uint8_t* base_bytes = page < kMaxSnapshotMemoryPages
                                         ? base_page(base, static_cast<std::uint32_t>(page))
                                         : nullptr;
    const bool in_memory = at + kSnapshotPageBytes <= memory.size();  // whole Wasm pages
    if (in_memory && base_bytes) {
      differs |= xor_of(dst, memory.data() + at, base_bytes, kSnapshotPageBytes);
    } else if (in_memory) {
      std::memcpy(dst, memory.data() + at, kSnapshotPageBytes);
      differs |= !all_zero(dst, kSnapshotPageBytes);
    } else if (base_bytes) {
      std::memcpy(dst, base_bytes, kSnapshotPageBytes);
      differs |= !all_zero(dst, kSnapshotPageBytes);
    } else {
      std::memset(dst, 0, kSnapshotPageBytes);
    }
  }
  return differs;
}

void undelta_chunk(const SnapshotBase& base, std::uint32_t chunk, std::span<std::uint8_t> data,
                   std::uint32_t chunk_pages) {
  if (!valid_chunk_pages(chunk_pages) || data.size() != chunk_pages * kSnapshotPageBytes) {
    throw std::invalid_argument("undelta_chunk needs one chunk");
  }
  for (std::uint32_t i = 0; i < chunk_pages; ++i) {
    const std::uint64_t page = std::uint64_t{chunk} * chunk_pages + i;
    if (page >= kMaxSnapshotMemoryPages) break;
    if (const std::uint8_t* b = base_page(base, static_cast<std::uint32_t>(page))) {
      std::uint8_t* at = data.data() + std::size_t{i} * kSnapshotPageBytes;
      (void)xor_of(at, at, b, kSnapshotPageBytes);  // in place: each word is read first
    }
  }
}

void check_record_against_base(const SnapshotRecord& record, const SnapshotBase* base) {
  if (record.memory_pages > kMaxSnapshotMemoryPages) {
    throw SnapshotError("snapshot record declares " + std::to_string(record.memory_pages) +
                        " memory pages, more than " + std::to_string(kMaxSnapshotMemoryPages));
  }
  if (!valid_chunk_pages(record.chunk_pages)) {
    throw SnapshotError("snapshot record declares " + std::to_string(record.chunk_pages) +
                        " pages per chunk");
  }
  if (!record.base) return;
  if (base == nullptr) {
    throw SnapshotError("snapshot is a delta from an engine image this engine does not offer");
  }
  if (*record.base != base->fingerprint) {
    throw SnapshotError("snapshot is a delta from image " + *record.base +
                        ", the engine's image is " + base->fingerprint);
  }
  if (record.memory_pages < base->pages) {
    throw SnapshotError("delta snapshot declares " + std::to_string(record.memory_pages) +
                        " memory pages, fewer than its image's " + std::to_string(base->pages));
  }
}

SnapshotPageReader::SnapshotPageReader(const SnapshotRecord& record, const ChunkMap& chunks,
                                       const SnapshotBase* base)
    : record_(record),
      chunks_(chunks),
      base_(record.base ? base : nullptr),
      decoder_(Shelf<ChunkCodec>::take().value_or(ChunkCodec())),
      buffer_(RecycledBuffer<std::vector<std::uint8_t>>::take()) {
  check_record_against_base(record, base);
  if (base_ && !chunks.empty()) {
    const std::uint64_t last_first_page =
        std::uint64_t{chunks.rbegin()->first} * record.chunk_pages;
    if (last_first_page >= record.memory_pages) {
      throw SnapshotError("delta snapshot has chunk " + std::to_string(chunks.rbegin()->first) +
                          " past its " + std::to_string(record.memory_pages) + " memory pages");
    }
  }
}

SnapshotPageReader::~SnapshotPageReader() {
  Shelf<ChunkCodec>::put(std::move(decoder_));
  RecycledBuffer<std::vector<std::uint8_t>>::give_back(std::move(buffer_));
}

std::optional<std::span<const std::uint8_t>> SnapshotPageReader::page(std::uint32_t page) {
  if (page >= record_.memory_pages) {
    throw SnapshotError("snapshot page " + std::to_string(page) + " is past its " +
                        std::to_string(record_.memory_pages) + " memory pages");
  }
  const std::uint32_t pages_per_chunk = record_.chunk_pages;
  const std::uint32_t chunk = page / pages_per_chunk;
  const auto it = chunks_.find(chunk);
  if (it == chunks_.end()) {
    if (!base_) return std::nullopt;                  // all zero
    const std::uint8_t* b = base_page(*base_, page);  // equal to the image
    if (!b) return std::nullopt;
    return std::span<const std::uint8_t>(b, kSnapshotPageBytes);
  }
  if (decoded_ != chunk) {
    decoded_.reset();
    buffer_.resize(std::size_t{pages_per_chunk} * kSnapshotPageBytes);
    decoder_.decode_into(record_.codec, it->second, buffer_);  // exactly one chunk, or throws
    if (base_) undelta_chunk(*base_, chunk, buffer_, pages_per_chunk);
    decoded_ = chunk;
  }
  return std::span<const std::uint8_t>(buffer_).subspan(
      std::size_t{page % pages_per_chunk} * kSnapshotPageBytes, kSnapshotPageBytes);
}

std::vector<std::uint32_t> SnapshotPageReader::delta_pages() const {
  std::vector<std::uint32_t> pages;
  if (!base_) return pages;
  for (const auto& entry : chunks_) {
    for (std::uint32_t i = 0; i < record_.chunk_pages; ++i) {
      const std::uint64_t page = std::uint64_t{entry.first} * record_.chunk_pages + i;
      if (page < record_.memory_pages) pages.push_back(static_cast<std::uint32_t>(page));
    }
  }
  return pages;
}

}  // namespace sandbox
