#include "snapshot/chunks.h"

#include <algorithm>
#include <string>

#include "snapshot/snapshot_error.h"

namespace sandbox {
namespace {

bool chunk_has_nonzero_page(const PageHashes& hashes, std::uint32_t chunk) {
  const std::uint64_t first = static_cast<std::uint64_t>(chunk) * kChunkPages;
  const auto it = hashes.lower_bound(static_cast<std::uint32_t>(first));
  return it != hashes.end() && it->first < first + kChunkPages;
}

}  // namespace

ChunkPlan plan_chunks(const PageDiff& diff, const PageHashes& current) {
  std::set<std::uint32_t> touched;
  for (const auto page : diff.changed) touched.insert(chunk_of_page(page));
  for (const auto page : diff.removed) touched.insert(chunk_of_page(page));
  ChunkPlan plan;
  for (const auto chunk : touched) {
    (chunk_has_nonzero_page(current, chunk) ? plan.upsert : plan.remove).push_back(chunk);
  }
  return plan;
}

void apply_chunk_plan(std::set<std::uint32_t>& chunk_ids, const ChunkPlan& plan) {
  for (const auto chunk : plan.remove) chunk_ids.erase(chunk);
  chunk_ids.insert(plan.upsert.begin(), plan.upsert.end());
}

std::vector<std::uint8_t> extract_chunk(std::span<const std::uint8_t> memory, std::uint32_t chunk) {
  std::vector<std::uint8_t> out(kChunkBytes, 0);
  const std::uint64_t start = static_cast<std::uint64_t>(chunk) * kChunkBytes;
  if (start < memory.size()) {
    const std::size_t n = std::min<std::uint64_t>(kChunkBytes, memory.size() - start);
    std::copy_n(memory.begin() + static_cast<std::ptrdiff_t>(start), n, out.begin());
  }
  return out;
}

std::optional<std::span<const std::uint8_t>> read_page(const ChunkMap& chunks, std::uint32_t page) {
  const auto it = chunks.find(chunk_of_page(page));
  if (it == chunks.end()) return std::nullopt;
  const std::size_t offset = (page % kChunkPages) * kSnapshotPageBytes;
  if (it->second.size() < offset + kSnapshotPageBytes) {
    throw SnapshotError("stored chunk " + std::to_string(it->first) + " holds " +
                        std::to_string(it->second.size()) + " bytes, too short for page " +
                        std::to_string(page));
  }
  return std::span<const std::uint8_t>(it->second).subspan(offset, kSnapshotPageBytes);
}

}  // namespace sandbox
