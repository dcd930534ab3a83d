// Per-key state of the InterpreterServer and the snapshot/restore steps that act on it.
//
// A KeyState is the actor of one interpreter key: its FifoLock serializes every call on the key,
// and everything else in it is touched only while that lock is held.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include <sandbox/engine.h>
#include <sandbox/protocol.h>
#include <sandbox/workspace.h>

#include "interpreter/fifo_lock.h"
#include "protocol/context_row.h"
#include "snapshot/chunks.h"
#include "snapshot/delta_frames.h"
#include "snapshot/page_hash.h"

namespace sandbox {

class InterpreterStore;

// The live instance of one context, with what the next snapshot diffs against.
struct Resident {
  std::string context_id;
  std::unique_ptr<SessionInstance> instance;
  PageHashes prev_hashes;  // hashes of the memory as last stored
  // prev_hashes describes the memory as of the instance's last snapshot() call: true after a
  // restore or a written snapshot; false after a boot (nothing stored yet), so the first
  // snapshot hashes everything even when the engine reports dirty pages.
  bool hashes_valid = false;
  // The chunk rows stored for the context, each with its size as stored (encoded): their sum is
  // the record's encodedBytes.
  std::map<std::uint32_t, std::uint32_t> chunks;
  // The stored chunks are deltas from the engine image with this fingerprint
  // (docs/snapshot-format.md#delta-encoding); false: they hold the memory itself, or none yet.
  bool delta = false;
  std::uint32_t chunk_pages = kChunkPages;  // pages per stored chunk row
  std::string base_fingerprint;
  // The block frames of the delta pages the last step wrote, for the next step to reuse.
  DeltaFrames frames;
  // The block hashes of the pages the last step's snapshot hashed, as they were then: a next
  // step whose engine reports which 4 KiB blocks it wrote (SessionSnapshot::dirty_blocks)
  // rehashes only those blocks of these pages (docs/snapshot-format.md#change-detection).
  std::unordered_map<std::uint32_t, BlockHashes> prev_blocks;
};

struct KeyState {
  explicit KeyState(const Clock& clock) : mirror(std::make_unique<Workspace>(clock)) {}

  FifoLock lock;
  std::unique_ptr<Workspace> mirror;  // memory only; re-synced from the caller on every execute
  std::optional<Resident> resident;
  std::optional<std::int64_t> alarm_cache;
  bool meta_ensured = false;
  // The fencing token of this node's lease on the key when it last acted on it (storage/lease.h;
  // always 0 with a store without ownership). A different token means another node may have
  // changed the key meanwhile: everything above is dropped and reloaded.
  std::int64_t lease_token = 0;
  // The row of the execution in progress: the target of the instance's cwd-change callback.
  ContextRow* current_row = nullptr;
  std::atomic<std::uint64_t> last_used{0};  // LRU tick of the resident
};

// The outcome of writing one snapshot.
struct SnapshotWriteResult {
  double elapsed_ms = 0;
  std::uint64_t bytes_written = 0;  // of the chunks upserted (compressed, as stored)
};

// Takes a snapshot of `resident` (which must belong to `row`) and writes changed chunks, deleted
// chunks and the row (with the new record) in one transaction (docs/contexts.md#cl9). With a
// `base` (the engine's image, may be null) the chunks are deltas from it
// (docs/snapshot-format.md#delta-encoding). On success updates the resident's hashes and chunk
// set and `row.snapshot`; on failure throws and changes nothing.
SnapshotWriteResult write_snapshot(InterpreterStore& store, const std::string& key,
                                   const std::string& build, const SnapshotBase* base,
                                   Resident& resident, ContextRow& row, std::int64_t now_ms);

// The one answer for a stored code context that reaches an engine without sessions (contexts
// exist only on one with them, so the row was left by another engine on the same store): 500
// INTERNAL_ERROR (ErrorKind::kInternal) "This engine has no session support".
[[nodiscard]] ApiError no_session_support();

// Restores `row`'s instance from its stored snapshot (docs/protocol.md#resident-instance R4),
// of either encoding; `base` is the engine's image (may be null). Requires row.snapshot with the
// engine's build (docs/contexts.md#cl4). Throws SnapshotError when the record or its chunks are
// unreadable (a delta from another image included), no_session_support() for an engine without
// sessions, and what the engine's restore throws.
Resident restore_resident(InterpreterStore& store, const std::string& key, const Engine& engine,
                          const SnapshotBase* base, const ContextRow& row,
                          const SessionOptions& options);

// Makes a freshly booted resident's baseline the engine image's page hashes (nothing stored yet),
// so its first snapshot hashes only what the engine reports written. No-op without a base.
void start_from_base(Resident& resident, const SnapshotBase* base);

}  // namespace sandbox
