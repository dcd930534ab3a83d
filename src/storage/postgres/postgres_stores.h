// The PostgreSQL backend's stores: the views of storage/database_stores.h over one
// PostgresDatabase (see postgres_database.h for the layout, schema check, pool and fencing).
// Their members are defined in postgres_interpreter_store.cc and postgres_sandbox_store.cc.
#pragma once

#include "storage/database_stores.h"
#include "storage/postgres/postgres_database.h"

namespace sandbox {

using PostgresInterpreterStore = DatabaseInterpreterStore<PostgresDatabase>;
using PostgresSandboxStore = DatabaseSandboxStore<PostgresDatabase>;
// One PostgreSQL database and both stores over it. PostgresStorage(conninfo, options):
// connects to `conninfo` (postgresql://USER@HOST:PORT/DB or key=value pairs). Throws
// StorageError.
using PostgresStorage = DatabaseStorage<PostgresDatabase, PostgresOptions>;

}  // namespace sandbox
