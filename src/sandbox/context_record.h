// ContextRecord: one row of a sandbox's code-context registry
// (docs/snapshot-format.md#sandbox-storage): {id, binding, language, engine, cwd, envVars,
// createdAt, lastUsed, executions, snapshot}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/json/object.hpp>

#include <sandbox/interpreter.h>

#include "sandbox/env_vars.h"

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
  // Reads a stored row; missing fields take defaults.
  static ContextRecord from_json(const boost::json::object& o);
};

}  // namespace sandbox
