// The command-line flags sandboxd and sandbox-runtime share, written once (CLI11):
//   --version, --licenses             docs/redistribution.md#versions
//   --isolation process|thread        docs/security.md#worker-processes
//   --workers N
//   --database URL, --node-id ID,     docs/several-nodes.md#options
//   --lease-ttl-ms N
// Each function adds its flags to `app`, bound to the caller's variables, whose values on entry
// are the defaults --help shows.
//
// Thread-safety: call them before parsing, from the thread that owns `app`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include <sandbox/isolation.h>

namespace sandbox::tools {

// --version prints "<program> <kit version>"; --licenses prints the third-party notices of the
// components built into the program. Both answer (exit 0) before any other option is checked.
void add_version_flags(CLI::App& app, std::string_view program);

// --isolation process|thread into `isolation`, --workers N (0: one per CPU, at least 2; at most
// kMaxWorkerProcesses) into `workers`.
void add_isolation_flags(CLI::App& app, Isolation& isolation, std::size_t& workers);

// --database URL (PostgreSQL shared with the other nodes; empty: SQLite), --node-id ID (empty:
// the default of storage/postgres/open_storage.h), --lease-ttl-ms N. `owned` names what a lease
// covers in --help ("sandbox", "interpreter key"). Returns the --lease-ttl-ms option: its bounds
// (kMinLeaseTtlMs, kMaxLeaseTtlMs of storage/lease.h) are checked by the caller, where its
// configuration is validated.
CLI::Option* add_storage_flags(CLI::App& app, std::string& database_url, std::string& node_id,
                               std::int64_t& lease_ttl_ms, std::string_view owned);

}  // namespace sandbox::tools
