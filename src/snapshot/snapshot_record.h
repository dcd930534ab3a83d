// SnapshotRecord: the `snapshot` field of a stored context row
// (docs/snapshot-format.md#snapshot-record), plus our `codec` (how the chunks are encoded), and
// SnapshotInfo, the view of it sent on the wire.
//
// JSON form (field names as upstream):
//   {"build": "...", "memoryPages": 600, "pageCount": 412, "bytes": 27000832, "chunkCount": 38,
//    "handle": "1234567", "extra": {...}, "takenAt": 1700000000000, "stale": false,
//    "codec": "zstd", "base": "<image fingerprint>", "chunkPages": 1, "encodedBytes": 812345}
// (`base` only for a delta from the engine's image, docs/snapshot-format.md#delta-encoding;
// `chunkPages` only when a chunk is not 16 pages; `encodedBytes`, the chunk rows' size as
// stored, only from writers that count it.)
// `handle` is a decimal string because it is a 64-bit integer (JSON numbers lose precision).
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <sandbox/protocol.h>

#include "snapshot/chunk_codec.h"
#include "snapshot/chunks.h"

namespace sandbox {

// The longest image fingerprint a stored record may carry (ours are 64 hex digits).
inline constexpr std::size_t kMaxBaseFingerprintChars = 128;

struct SnapshotRecord {
  std::string build;
  std::uint32_t memory_pages = 0;
  std::uint32_t page_count = 0;  // non-zero pages
  std::uint64_t bytes = 0;       // page_count * 64 KiB
  std::uint32_t chunk_count = 0;
  std::uint64_t handle = 0;
  boost::json::object extra;
  std::int64_t taken_at = 0;  // epoch ms
  bool stale = false;
  Codec codec = Codec::kRaw;
  // The fingerprint of the engine image the chunks are deltas from
  // (docs/snapshot-format.md#delta-encoding); nullopt: the chunks hold the memory itself.
  std::optional<std::string> base;
  // Pages per chunk row (valid_chunk_pages): kChunkPages unless the record says otherwise;
  // deltas are written with kDeltaChunkPages.
  std::uint32_t chunk_pages = kChunkPages;
  // The sum of the chunk rows' sizes as stored (encoded); nullopt in a record of a writer that
  // did not count it.
  std::optional<std::uint64_t> encoded_bytes;

  bool operator==(const SnapshotRecord&) const = default;
};

boost::json::object to_json(const SnapshotRecord& record);

// Parses a stored record. Tolerant of what older writers left out: a missing `codec` means
// raw, a missing `stale` false, a missing `extra` {}, missing counts 0; `handle` may also be a
// JSON number, and a negative decimal (a signed 64-bit handle) is kept as its two's complement.
// Throws SnapshotError when `value` is not an object, `build` or `handle` is missing or
// malformed, a number does not fit its field, the codec is unknown, `base` is not a string of
// 1 to kMaxBaseFingerprintChars characters, or `chunkPages` is not a power of two from 1 to 16.
[[nodiscard]] SnapshotRecord parse_snapshot_record(const boost::json::value& value);

// The SnapshotInfo (include/sandbox/protocol.h) a client sees of a stored record.
SnapshotInfo snapshot_info(const SnapshotRecord& record);

// {"build", "pages", "bytes", "storedBytes", "takenAt", "stale"[, "encodedBytes"]}.

}  // namespace sandbox
