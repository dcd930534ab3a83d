// Storage: one database and both stores over it, whichever the backend (SQLite or PostgreSQL):
// what main() opens and wires into the servers.
//
// Thread-safety: as the stores (safe from any thread).
#pragma once

#include "storage/interpreter_store.h"
#include "storage/sandbox_store.h"

namespace sandbox {

class Storage {
 public:
  virtual ~Storage() = default;
  virtual InterpreterStore& interpreters() = 0;
  virtual SandboxStore& sandboxes() = 0;
  // Gives up every lease both stores hold (a graceful shutdown: other nodes take the keys at
  // once instead of after the TTL). Throws StorageError.
  void release_all_leases() {
    interpreters().release_all_leases();
    sandboxes().release_all_leases();
  }
};

}  // namespace sandbox
