#include <chrono>
#include <stdexcept>

#include "interpreter/session_state.h"
#include "snapshot/chunk_codec.h"
#include "snapshot/chunks.h"
#include "storage/interpreter_store.h"

namespace sandbox {

SnapshotWriteResult write_snapshot(InterpreterStore& store, const std::string& key,
                                   const std::string& build, Resident& resident, ContextRow& row,
                                   std::int64_t now_ms) {
  const auto start = std::chrono::steady_clock::now();
  const SessionSnapshot snap = resident.instance->snapshot();
  const std::span<const std::uint8_t> memory = snap.memory;

  PageHashes hashes;
  if (snap.dirty_pages && resident.hashes_valid) {
    // Write tracking: only the dirty pages can differ from what was last stored.
    hashes = resident.prev_hashes;
    const auto pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
    for (const std::uint32_t p : *snap.dirty_pages) {
      if (p >= pages) continue;
      const auto page =
          memory.subspan(std::size_t{p} * kSnapshotPageBytes).first<kSnapshotPageBytes>();
      if (const auto h = hash_page(page)) {
        hashes[p] = *h;
      } else {
        hashes.erase(p);
      }
    }
  } else {
    hashes = hash_memory(memory);
  }
  const ChunkPlan plan = plan_chunks(diff_pages(resident.prev_hashes, hashes), hashes);
  std::set<std::uint32_t> chunk_ids = resident.chunk_ids;
  apply_chunk_plan(chunk_ids, plan);

  // One codec per thread: its zstd context and buffers stay warm across snapshots.
  thread_local ChunkCodec codec(Codec::kZstd);
  SnapshotWrite write;
  write.removed = plan.remove;
  write.upserts.reserve(plan.upsert.size());
  for (const std::uint32_t c : plan.upsert) {
    const std::size_t start = std::size_t{c} * kChunkBytes;
    // A whole chunk is compressed straight from memory; only a trailing partial one is copied
    // and zero-filled first.
    write.upserts.push_back(ChunkWrite{c, start + kChunkBytes <= memory.size()
                                              ? codec.encode(memory.subspan(start, kChunkBytes))
                                              : codec.encode(extract_chunk(memory, c))});
  }

  SnapshotRecord record;
  record.build = build;
  record.memory_pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  record.page_count = static_cast<std::uint32_t>(hashes.size());
  record.bytes = static_cast<std::uint64_t>(hashes.size()) * kSnapshotPageBytes;
  record.chunk_count = static_cast<std::uint32_t>(chunk_ids.size());
  record.handle = snap.handle;
  record.extra = snap.extra;
  record.taken_at = now_ms;
  record.stale = false;
  record.codec = codec.codec();

  ContextRow updated = row;
  updated.snapshot = record;
  write.context_row = to_json(updated);
  store.write_snapshot(key, row.id, write);  // throws: nothing changed

  row.snapshot = std::move(record);
  resident.prev_hashes = std::move(hashes);
  resident.hashes_valid = true;
  resident.chunk_ids = std::move(chunk_ids);
  return {
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()};
}

Resident restore_resident(InterpreterStore& store, const std::string& key, const Engine& engine,
                          const ContextRow& row, const SessionOptions& options) {
  // The caller checks (docs/contexts.md#cl4); a row without a record here is our own bug.
  if (!row.snapshot) throw std::logic_error("restore_resident: context row has no snapshot");
  const SnapshotRecord& record = *row.snapshot;
  const StoredChunks stored = store.read_chunks(key, row.id);
  std::set<std::uint32_t> chunk_ids;
  for (const auto& entry : stored) chunk_ids.insert(entry.first);

  // Chunks are decoded lazily into one reused buffer: engines read pages in order, and fresh
  // memory for every chunk would cost a page fault per 4 KiB.
  ChunkCodec codec(record.codec);
  std::vector<std::uint8_t> buffer(kChunkBytes);
  std::optional<std::uint32_t> decoded;
  SnapshotSource source;
  source.handle = record.handle;
  source.extra = record.extra;
  source.memory_pages = record.memory_pages;
  source.read_page = [&](std::uint32_t page) -> std::optional<std::span<const std::uint8_t>> {
    const std::uint32_t chunk = chunk_of_page(page);
    const auto it = stored.find(chunk);
    if (it == stored.end()) return std::nullopt;
    if (decoded != chunk) {
      decoded.reset();
      codec.decode_into(record.codec, it->second, buffer);
      decoded = chunk;
    }
    return std::span<const std::uint8_t>(buffer).subspan(
        std::size_t{page % kChunkPages} * kSnapshotPageBytes, kSnapshotPageBytes);
  };

  Resident resident;
  resident.context_id = row.id;
  if (!engine.sessions) throw std::logic_error("restore_resident: the engine has no sessions");
  resident.instance = engine.sessions->restore(options, source);
  // Hash what was actually restored: the next snapshot diffs against it.
  // (This snapshot() call is also the baseline of the instance's write tracking.)
  resident.prev_hashes = hash_memory(resident.instance->snapshot().memory);
  resident.hashes_valid = true;
  resident.chunk_ids = std::move(chunk_ids);
  return resident;
}

}  // namespace sandbox
