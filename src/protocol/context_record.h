// ContextRecord: one row of a sandbox's code-context registry
// (docs/snapshot-format.md#sandbox-storage): {id, binding, language, engine, cwd, envVars,
// createdAt, lastUsed, executions, snapshot}, its encoders and its decoder.
//
// A stored row is hostile too, but ContextRecord::from_json never throws: each field falls back
// to its default rather than failing the sandbox's every request. Per field:
//   id, binding, language, engine, createdAt, lastUsed
//             a string, else (absent, null, number, array, object) ""
//   cwd       a non-empty string, else "/workspace"
//   envVars   env_from_json (protocol/env_vars_json.h): not an object reads as {}, non-string
//             values are skipped
//   executions
//             checked_uint64 (protocol/json_number.h): an integer in [0, 2^64), else (absent,
//             -1, 1.5, 1e300, a string "7") 0
//   snapshot  snapshot_info_from_json (sandbox/protocol.h): not an object or without a string
//             build reads as none; a count (pages, bytes, storedBytes, takenAt) that is absent,
//             not a number or a negative integer reads as 0, one that is fractional or past its
//             type's range (pages > 2^32 - 1, 1e300) makes the whole snapshot none; stale is
//             true only for JSON true
// Unknown fields are ignored.
//
// Value type; pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/json/object.hpp>

#include <sandbox/protocol.h>

#include "protocol/env_vars_json.h"

namespace sandbox {

struct ContextRecord {
  std::string id;
  std::string binding;
  std::string language;
  std::string engine;
  std::string cwd;
  EnvVars env_vars;
  std::string created_at;        // ISO
  std::string last_used;         // ISO
  std::uint64_t executions = 0;  // the sandbox's own count
  std::optional<SnapshotInfo> snapshot;

  boost::json::object to_json() const;
  // The form of SandboxInfo.contexts (docs/sandbox-api.md#sandbox-info): the row without its env
  // vars.
  boost::json::object to_info_json() const;
  // The public form of POST/GET /contexts: {id, binding, language, cwd, createdAt, lastUsed}.
  boost::json::object to_public_json() const;
  // Reads a stored row by the rules above; never throws.
  static ContextRecord from_json(const boost::json::object& o);
};

}  // namespace sandbox
