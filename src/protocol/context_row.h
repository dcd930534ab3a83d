// The context row of storage format 4 (docs/contexts.md#pieces):
// {id, cwd, createdAt, lastUsed, executions, snapshot: SnapshotRecord | null}, its encoder and
// its decoder.
//
// A stored row is hostile too. parse_context_row refuses only a row without an id; every other
// field falls back to its default. Per field:
//   id        a string, else std::invalid_argument("context row without an id")
//   cwd       a string, else "/workspace" (an empty string is kept)
//   createdAt a string, else ""
//   lastUsed  a string, else createdAt as read
//   executions
//             checked_uint64 (protocol/json_number.h): an integer in [0, 2^64), else (absent,
//             -1, 1.5, 1e300, a string "7") 0
//   snapshot  an object is read by parse_snapshot_record (snapshot/snapshot_record.h) and its
//             errors propagate; anything else (absent, null, a number) reads as none
// Unknown fields are ignored.
//
// Value type; pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/json/object.hpp>

#include "snapshot/snapshot_record.h"

namespace sandbox {

struct ContextRow {
  std::string id;
  std::string cwd;
  std::string created_at;  // ISO-8601
  std::string last_used;   // ISO-8601
  std::uint64_t executions = 0;
  std::optional<SnapshotRecord> snapshot;
};

boost::json::object to_json(const ContextRow& row);
// By the rules above; throws std::invalid_argument when `id` is missing.
[[nodiscard]] ContextRow parse_context_row(const boost::json::object& o);

}  // namespace sandbox
