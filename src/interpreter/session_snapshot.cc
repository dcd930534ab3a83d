#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "interpreter/session_state.h"
#include "snapshot/chunk_codec.h"
#include "snapshot/chunks.h"
#include "snapshot/delta.h"
#include "snapshot/delta_frames.h"
#include "snapshot/dirty_blocks.h"
#include "storage/interpreter_store.h"

namespace sandbox {
namespace {

// Rehashes `pages` of `memory` into `hashes` (pages past the memory are skipped).
void rehash_pages(std::span<const std::uint8_t> memory, const std::vector<std::uint32_t>& pages,
                  PageHashes& hashes) {
  const auto count = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  for (const std::uint32_t p : pages) {
    if (p >= count) continue;
    const auto page =
        memory.subspan(std::size_t{p} * kSnapshotPageBytes).first<kSnapshotPageBytes>();
    if (const auto h = hash_page(page)) {
      hashes[p] = *h;
    } else {
      hashes.erase(p);
    }
  }
}

std::uint32_t chunks_spanning(std::span<const std::uint8_t> memory, std::uint32_t chunk_pages) {
  const std::uint64_t pages = memory.size() / kSnapshotPageBytes;
  return static_cast<std::uint32_t>((pages + chunk_pages - 1) / chunk_pages);
}

}  // namespace

SnapshotWriteResult write_snapshot(InterpreterStore& store, const std::string& key,
                                   const std::string& build, const SnapshotBase* base,
                                   Resident& resident, ContextRow& row, std::int64_t now_ms) {
  const auto start = std::chrono::steady_clock::now();
  const SessionSnapshot snap = resident.instance->snapshot();
  const std::span<const std::uint8_t> memory = snap.memory;

  // docs/snapshot-format.md#delta-encoding (I11): a delta from the image when the engine offers
  // one; the memory itself otherwise.
  const SnapshotBase* delta_base =
      base != nullptr && memory.size() >= std::size_t{base->pages} * kSnapshotPageBytes ? base
                                                                                        : nullptr;
  const bool to_delta = delta_base != nullptr;
  const std::uint32_t chunk_pages = to_delta ? kDeltaChunkPages : kChunkPages;
  // I13: chunks stored in the other encoding (or in a delta from another image, or in chunks of
  // another size) are all rewritten once; otherwise only the chunks around pages that changed
  // since the last write.
  const bool rewrite_all = to_delta != resident.delta || chunk_pages != resident.chunk_pages ||
                           (to_delta && resident.base_fingerprint != base->fingerprint);

  // Write tracking: only the dirty pages can differ from what was last stored.
  const bool tracked = snap.dirty_pages && resident.hashes_valid;
  // The hashes of the memory now: the stored ones with the dirty pages rehashed, or all anew.
  const auto hash_now = [&] {
    if (!tracked) return hash_memory(memory);
    PageHashes h = resident.prev_hashes;
    rehash_pages(memory, *snap.dirty_pages, h);
    return h;
  };

  // One codec and one chunk buffer per thread: the zstd context stays warm across snapshots,
  // and a snapshot allocates (and page-faults) no buffer.
  thread_local ChunkCodec codec(Codec::kZstd);
  thread_local std::vector<std::uint8_t> buffer;
  if (to_delta) buffer.resize(std::size_t{chunk_pages} * kSnapshotPageBytes);
  SnapshotWrite write;
  std::map<std::uint32_t, std::uint32_t> chunks = resident.chunks;  // row -> encoded bytes
  const auto upsert = [&](std::uint32_t chunk, std::vector<std::uint8_t> data) {
    chunks[chunk] = static_cast<std::uint32_t>(data.size());
    write.upserts.push_back(ChunkWrite{chunk, std::move(data)});
  };
  PageHashes hashes;  // the new hashes, except on the usual step, which lists its changes
  std::vector<std::pair<std::uint32_t, std::optional<std::uint64_t>>> hash_changes;
  std::size_t page_count = 0;
  const bool usual_step = to_delta && tracked && !rewrite_all;
  if (!usual_step) resident.frames.clear();  // perhaps another image; rows written whole
  // Taken out, so a failed write leaves none that could be stale; put back (as this step's
  // pages) once the write succeeded.
  const std::unordered_map<std::uint32_t, BlockHashes> prev_blocks =
      std::exchange(resident.prev_blocks, {});
  std::unordered_map<std::uint32_t, BlockHashes> next_blocks;
  if (usual_step) {
    // Each dirty page is hashed, block by block; a page whose hash did not change was written
    // as it was. Any other is compared with the image's page: equal, its row goes; otherwise it
    // is stored as its own chunk, in frames over runs of 4 KiB blocks of which only those
    // holding a block changed since the page was last written are XORed with the image and
    // compressed again (delta_frames.h). Python rewrites about 18 of the 38 pages a step
    // dirties; XORing every dirty page up front took a sixth of its step.
    const auto memory_pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
    page_count = resident.prev_hashes.size();
    // The engine lists dirty pages in any order (engine.h), perhaps more than once, and may say
    // which blocks of each it wrote (all of them when it does not).
    const std::vector<WrittenPage> dirty =
        written_pages(*snap.dirty_pages, snap.dirty_blocks, memory_pages);
    next_blocks.reserve(dirty.size());
    for (const auto& [p, written] : dirty) {
      const auto bytes =
          memory.subspan(std::size_t{p} * kSnapshotPageBytes).first<kSnapshotPageBytes>();
      // A page hashed by the last step has the hashes of its unwritten blocks already.
      BlockHashes& blocks = next_blocks[p];
      std::optional<std::uint64_t> hash;
      if (const auto known = prev_blocks.find(p); known != prev_blocks.end()) {
        blocks = known->second;
        hash = rehash_blocks(bytes, written, blocks);
      } else {
        hash = hash_page(bytes, blocks);
      }
      const auto it = resident.prev_hashes.find(p);
      const std::optional<std::uint64_t> before =
          it == resident.prev_hashes.end() ? std::nullopt : std::optional(it->second);
      if (hash == before) continue;  // written, but as it was
      page_count = page_count + (hash ? 1 : 0) - (before ? 1 : 0);
      hash_changes.emplace_back(p, hash);
      const std::uint8_t* image = base_page(*delta_base, p);
      // The image's page hashes are this process's too: equal hashes are equal bytes.
      const auto in_image = delta_base->page_hashes.find(p);
      const bool differs =
          in_image == delta_base->page_hashes.end() ? hash.has_value() : hash != in_image->second;
      if (differs) {
        upsert(p, resident.frames.encode(p, blocks, bytes, image, codec));
      } else if (chunks.erase(p) > 0) {
        write.removed.push_back(p);  // the page equals the image again
      }
    }
    resident.frames.end_step();
  } else if (to_delta) {
    hashes = hash_now();
    page_count = hashes.size();
    std::set<std::uint32_t> touched;
    if (rewrite_all) {
      // Old ids of another chunk size that are not rewritten below are removed.
      for (std::uint32_t c = 0; c < chunks_spanning(memory, chunk_pages); ++c) touched.insert(c);
      for (const auto& [c, size] : resident.chunks) touched.insert(c);
    } else {
      const PageDiff diff = diff_pages(resident.prev_hashes, hashes);
      for (const auto p : diff.changed) touched.insert(p / chunk_pages);
      for (const auto p : diff.removed) touched.insert(p / chunk_pages);
    }
    const std::span<std::uint8_t> chunk(buffer);
    for (const std::uint32_t c : touched) {
      if (delta_chunk(memory, *delta_base, c, chunk, chunk_pages)) {
        upsert(c, codec.encode(chunk));
      } else if (chunks.erase(c) > 0) {
        write.removed.push_back(c);  // the chunk equals the image again
      }
    }
  } else {
    hashes = hash_now();
    page_count = hashes.size();
    ChunkPlan plan;
    if (rewrite_all) {
      // Every chunk with a non-zero page; every other stored chunk goes.
      for (const auto& [p, h] : hashes) {
        const std::uint32_t c = chunk_of_page(p);
        if (plan.upsert.empty() || plan.upsert.back() != c) plan.upsert.push_back(c);
      }
      for (const auto& [c, size] : resident.chunks) {
        if (!std::binary_search(plan.upsert.begin(), plan.upsert.end(), c)) {
          plan.remove.push_back(c);
        }
      }
    } else {
      plan = plan_chunks(diff_pages(resident.prev_hashes, hashes), hashes);
    }
    for (const std::uint32_t c : plan.remove) chunks.erase(c);
    write.removed = plan.remove;
    write.upserts.reserve(plan.upsert.size());
    for (const std::uint32_t c : plan.upsert) {
      const std::size_t at = std::size_t{c} * kChunkBytes;
      // A whole chunk is compressed straight from memory; only a trailing partial one is copied
      // and zero-filled first.
      upsert(c, at + kChunkBytes <= memory.size() ? codec.encode(memory.subspan(at, kChunkBytes))
                                                  : codec.encode(extract_chunk(memory, c)));
    }
  }

  SnapshotRecord record;
  record.build = build;
  record.memory_pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  record.page_count = static_cast<std::uint32_t>(page_count);
  record.bytes = static_cast<std::uint64_t>(page_count) * kSnapshotPageBytes;
  record.chunk_count = static_cast<std::uint32_t>(chunks.size());
  std::uint64_t encoded_bytes = 0;
  for (const auto& [c, size] : chunks) encoded_bytes += size;
  record.encoded_bytes = encoded_bytes;
  record.handle = snap.handle;
  record.extra = snap.extra;
  record.taken_at = now_ms;
  record.stale = false;
  record.codec = codec.codec();
  if (to_delta) record.base = delta_base->fingerprint;
  record.chunk_pages = chunk_pages;

  ContextRow updated = row;
  updated.snapshot = record;
  write.context_row = to_json(updated);
  store.write_snapshot(key, row.id, write);  // throws: nothing changed

  row.snapshot = std::move(record);
  resident.prev_blocks = std::move(next_blocks);
  if (!usual_step) {
    resident.prev_hashes = std::move(hashes);
  } else {
    for (const auto& [p, hash] : hash_changes) {
      if (hash) {
        resident.prev_hashes[p] = *hash;
      } else {
        resident.prev_hashes.erase(p);
      }
    }
  }
  resident.hashes_valid = true;
  resident.chunks = std::move(chunks);
  resident.delta = to_delta;
  resident.chunk_pages = chunk_pages;
  resident.base_fingerprint = to_delta ? delta_base->fingerprint : std::string();
  std::uint64_t bytes_written = 0;
  for (const auto& upsert : write.upserts) bytes_written += upsert.data.size();
  return {
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
      bytes_written};
}

ApiError no_session_support() {
  return ApiError(ErrorKind::kInternal, "This engine has no session support");
}

Resident restore_resident(InterpreterStore& store, const std::string& key, const Engine& engine,
                          const SnapshotBase* base, const ContextRow& row,
                          const SessionOptions& options) {
  // The caller checks (docs/contexts.md#cl4); a row without a record here is our own bug.
  if (!row.snapshot) throw std::logic_error("restore_resident: context row has no snapshot");
  const SnapshotRecord& record = *row.snapshot;
  const StoredChunks stored = store.read_chunks(key, row.id);
  std::map<std::uint32_t, std::uint32_t> chunks;
  for (const auto& [chunk, data] : stored) chunks[chunk] = static_cast<std::uint32_t>(data.size());

  // Checks the record against the engine's image and serves pages of either encoding; chunks
  // are decoded lazily into one reused buffer, as engines read pages in order.
  SnapshotPageReader reader(record, stored, base);  // throws SnapshotError (I12)
  SnapshotSource source;
  source.handle = record.handle;
  source.extra = record.extra;
  source.memory_pages = record.memory_pages;
  // The hash of every page the engine copies in, taken from the bytes served: the memory is
  // not read again for it (an untouched 4 KiB block of a mapped image costs a page fault on its
  // first read once write tracking is armed, as the kernel then maps no neighbours).
  std::map<std::uint32_t, std::optional<std::uint64_t>> served;  // page -> hash (none: zero)
  source.read_page = [&reader, &served, delta = record.base.has_value()](std::uint32_t page) {
    const auto bytes = reader.page(page);
    if (delta) served[page] = bytes ? hash_page(bytes->first<kSnapshotPageBytes>()) : std::nullopt;
    return bytes;
  };
  if (record.base) {
    source.base_delta_pages = reader.delta_pages();
    source.base_fingerprint = *record.base;
  }

  Resident resident;
  resident.context_id = row.id;
  if (!engine.sessions) throw no_session_support();
  resident.instance = engine.sessions->restore(options, source);
  // The baseline of the next diff (I6). This snapshot() call is also the baseline of the
  // instance's write tracking; what it reports dirty is what the engine wrote after the copy.
  const SessionSnapshot after = resident.instance->snapshot();
  if (record.base && after.dirty_pages) {
    // I14: the image's hashes, with the pages of the stored delta and the pages written since
    // the copy rehashed; no need to hash the whole memory again.
    resident.prev_hashes = base->page_hashes;
    std::vector<std::uint32_t> unserved;
    for (const std::uint32_t page : *source.base_delta_pages) {  // reader.delta_pages()
      const auto it = served.find(page);
      if (it == served.end()) {
        unserved.push_back(page);  // the engine did not ask: read what the memory holds
        continue;
      }
      if (const std::optional<std::uint64_t>& hash = it->second) {
        resident.prev_hashes[page] = *hash;
      } else {
        resident.prev_hashes.erase(page);
      }
    }
    rehash_pages(after.memory, unserved, resident.prev_hashes);
    rehash_pages(after.memory, *after.dirty_pages, resident.prev_hashes);
    for (auto it = resident.prev_hashes.lower_bound(record.memory_pages);
         it != resident.prev_hashes.end();) {
      it = resident.prev_hashes.erase(it);  // defensive: the memory is at least the image
    }
  } else {
    resident.prev_hashes = hash_memory(after.memory);
  }
  resident.hashes_valid = true;
  resident.chunks = std::move(chunks);
  resident.delta = record.base.has_value();
  resident.chunk_pages = record.chunk_pages;
  resident.base_fingerprint = record.base.value_or(std::string());
  return resident;
}

void start_from_base(Resident& resident, const SnapshotBase* base) {
  if (base == nullptr) return;
  // I14: a booted instance holds the image (plus what the engine wrote since, which its write
  // tracking reports at the first snapshot), and nothing is stored yet.
  resident.prev_hashes = base->page_hashes;
  resident.hashes_valid = true;
  resident.chunks.clear();
  resident.delta = true;
  resident.chunk_pages = kDeltaChunkPages;
  resident.base_fingerprint = base->fingerprint;
}

}  // namespace sandbox
