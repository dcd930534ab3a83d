// InterpreterStore: durable state of the runtime side, per interpreter key (storage format 4 of
// docs/snapshot-format.md#interpreter-storage, with the key added so one database serves every
// key).
//
// Per key it holds: the interpreter meta (one JSON object, docs/protocol.md#interpreter-meta), the
// context rows (JSON, each embedding its SnapshotRecord), the snapshot chunks of each context
// (chunk index -> bytes, stored exactly as given: the caller encodes them and records the codec in
// the snapshot record), and an optional idle-expiry deadline.
//
// Durability invariants (each write method is one transaction):
//  1. write_snapshot() replaces a context's snapshot atomically: after a crash or failure at any
//     point, the stored chunks and the context row are either all old or all new.
//  2. drop_snapshot() and delete_context() remove chunks and rewrite/delete the row atomically.
//  3. wipe() removes everything of one key atomically; other keys are untouched.
//  4. A method that throws StorageError had no effect.
//
// Ownership among several nodes (an addition; storage/lease.h): acquire_lease() takes or renews
// this node's lease on a key, and every write method is fenced by the token this store holds for
// the key (a stale token: FencedWriteError, nothing written). The defaults below are a store
// without ownership (one process owns every key), so wrappers need not implement them; the
// SQLite and PostgreSQL backends implement them with a lease row per key.
//
// Thread-safety: implementations are safe to call from several threads; calls on one key are
// expected to come from that key's owner one at a time (the InterpreterServer actor), so there
// is no cross-call locking for read-modify-write sequences.
//
// Errors: StorageError for any backend failure or a stored JSON value that does not parse as an
// object.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include "storage/lease.h"

namespace sandbox {

// The storage format this layout implements; meta rows whose JSON `format` is a number below it
// are wiped at open (docs/snapshot-format.md#schema-check).
inline constexpr int kInterpreterStorageFormat = 4;

// Chunk index -> stored bytes.
using StoredChunks = std::map<std::uint32_t, std::vector<std::uint8_t>>;

// A JSON row and its id.
struct StoredRow {
  std::string id;
  boost::json::object value;
};

struct ChunkWrite {
  std::uint32_t chunk = 0;
  std::vector<std::uint8_t> data;
};

// One snapshot write (docs/snapshot-format.md#snapshot-write, step 5): delete `removed`, upsert
// `upserts`, write the context row.
struct SnapshotWrite {
  std::vector<std::uint32_t> removed;
  std::vector<ChunkWrite> upserts;
  boost::json::object context_row;
};

class InterpreterStore {
 public:
  virtual ~InterpreterStore() = default;

  // Interpreter meta (docs/protocol.md#interpreter-meta), rewritten whole.
  virtual std::optional<boost::json::object> get_meta(std::string_view key) = 0;
  virtual void put_meta(std::string_view key, const boost::json::object& meta) = 0;

  // Context rows, in creation order (an update keeps the position).
  virtual std::vector<StoredRow> list_contexts(std::string_view key) = 0;
  virtual std::optional<boost::json::object> get_context(std::string_view key,
                                                         std::string_view id) = 0;
  virtual void put_context(std::string_view key, std::string_view id,
                           const boost::json::object& row) = 0;
  // Deletes the context's chunks and its row in one transaction. Returns whether a row existed.
  virtual bool delete_context(std::string_view key, std::string_view id) = 0;

  // Every stored chunk of a context (empty when it has none).
  virtual StoredChunks read_chunks(std::string_view key, std::string_view context_id) = 0;
  // Invariant 1. `write.context_row` is stored as the row of `context_id`.
  virtual void write_snapshot(std::string_view key, std::string_view context_id,
                              const SnapshotWrite& write) = 0;
  // Deletes every chunk of the context and, when `row` is given, rewrites its row, in one
  // transaction (docs/protocol.md#context-deletion; also the build-mismatch discard of
  // docs/protocol.md#resident-instance R5, with no row).
  virtual void drop_snapshot(std::string_view key, std::string_view context_id,
                             const std::optional<boost::json::object>& row) = 0;

  // Removes everything of `key`: meta, contexts, chunks, alarm.
  virtual void wipe(std::string_view key) = 0;
  // Keys that have any stored state, sorted.
  virtual std::vector<std::string> list_keys() = 0;
  // How many keys hold at least one context row (what kMaxInterpreterKeys bounds).
  virtual std::size_t count_keys_with_contexts() = 0;

  // The idle-expiry deadline of `key` (epoch ms), if armed (docs/protocol.md#idle-expiry).
  virtual std::optional<std::int64_t> get_alarm(std::string_view key) = 0;
  // Arms (a value) or clears (nullopt) the deadline.
  virtual void set_alarm(std::string_view key, std::optional<std::int64_t> deadline_ms) = 0;
  // Every armed deadline, soonest first (for re-arming timers at start-up).
  virtual std::vector<std::pair<std::string, std::int64_t>> list_alarms() = 0;

  // ---- Ownership (storage/lease.h) ----------------------------------------------------------
  // Takes or renews this node's lease on `key`. Throws LeaseHeldError while another node holds
  // a live lease on it, StorageError on a backend failure. Default: token 0, never `acquired`.
  virtual LeaseGrant acquire_lease(std::string_view /*key*/) { return {}; }
  // Gives up this store's lease on `key` (expires it now) so another node may take it at once;
  // nothing when this store holds none or lost it. Default: nothing.
  virtual void release_lease(std::string_view /*key*/) {}
  // release_lease() for every key this store holds (a node's graceful shutdown).
  virtual void release_all_leases() {}
};

}  // namespace sandbox
