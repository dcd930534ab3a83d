// The SQLite backend's stores: the views of storage/database_stores.h over one SqliteDatabase
// (see sqlite_database.h for the layout, schema check and threading). Their members are defined
// in sqlite_interpreter_store.cc and sqlite_sandbox_store.cc.
#pragma once

#include "storage/database_stores.h"
#include "storage/sqlite/sqlite_database.h"

namespace sandbox {

using SqliteInterpreterStore = DatabaseInterpreterStore<SqliteDatabase>;
using SqliteSandboxStore = DatabaseSandboxStore<SqliteDatabase>;
// One database file and both stores over it. SqliteStorage(path, options): opens or creates
// `path` (":memory:" for tests). Throws StorageError.
using SqliteStorage = DatabaseStorage<SqliteDatabase, SqliteOptions>;

}  // namespace sandbox
