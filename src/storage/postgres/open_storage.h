// Opening the storage backend a server was configured with: SQLite in a file (the default, one
// node) or a shared PostgreSQL database (several nodes, architecture.md "Scaling past one
// machine"). What sandboxd's and sandbox-runtime's --database, --node-id and --lease-ttl-ms
// options select.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "storage/lease.h"
#include "storage/storage.h"

namespace sandbox {

struct StorageConfig {
  // Empty: SQLite at `sqlite_path`. Otherwise a PostgreSQL connection string: a
  // postgresql:// (or postgres://) URI, or libpq key=value pairs ("host=/run/pg dbname=sbx").
  std::string database_url;
  std::string sqlite_path;
  LeaseOptions lease;
  // PostgreSQL only: the connection pool's size.
  int max_connections = 8;
};

// Whether `url` names a PostgreSQL database (a postgres:// or postgresql:// URI, or a libpq
// key=value string).
bool is_postgres_url(std::string_view url);

// The node id a server uses when none is given: with a shared PostgreSQL database
// (`database_url` not empty) this machine's host name ("local" when it cannot be read); with
// SQLite, which one machine owns, always "local", so a restarted server takes its keys back at
// once whatever the host is called now.
std::string default_node_id(std::string_view database_url);

// Opens the configured backend. Throws std::invalid_argument for a database URL that is not
// PostgreSQL's, StorageError when the database cannot be opened.
std::unique_ptr<Storage> open_storage(const StorageConfig& config);

// A description for start-up lines: "sqlite PATH" or "postgresql HOST/DB" (no password).
std::string describe_storage(const StorageConfig& config);

}  // namespace sandbox
