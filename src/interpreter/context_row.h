// The context row of storage format 4 (docs/contexts.md#pieces):
// {id, cwd, createdAt, lastUsed, executions, snapshot: SnapshotRecord | null}.
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
// Tolerant of missing fields (defaults); throws std::invalid_argument when `id` is missing.
ContextRow parse_context_row(const boost::json::object& o);

}  // namespace sandbox
