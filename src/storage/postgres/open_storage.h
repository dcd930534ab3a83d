// Opening the storage backend a server was configured with: SQLite in a file (the default, one
// node) or a shared PostgreSQL database (several nodes, docs/several-nodes.md). What sandboxd's and
// sandbox-runtime's --database, --node-id and --lease-ttl-ms options select.
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

// Whether this build has the PostgreSQL backend: the CMake option SANDBOX_WITH_POSTGRES
// (CMakeLists.txt), which decides whether postgres_open.cc or postgres_not_built.cc is linked.
bool postgres_built();

// Why a PostgreSQL database cannot be used by a build without the backend; the servers check
// postgres_built() with their options and stop with it.
inline constexpr std::string_view kPostgresNotBuiltMessage =
    "this build has no PostgreSQL support (it was configured with -DSANDBOX_WITH_POSTGRES=OFF): "
    "leave --database out to keep the data in SQLite, or rebuild with -DSANDBOX_WITH_POSTGRES=ON "
    "(libpq, Debian package libpq-dev)";

// Opens the configured backend. Throws std::invalid_argument for a database URL that is not
// PostgreSQL's, or for a PostgreSQL one in a build without the backend (kPostgresNotBuiltMessage);
// StorageError when the database cannot be opened.
std::unique_ptr<Storage> open_storage(const StorageConfig& config);

// The PostgreSQL half of open_storage(), for a `config` whose database_url is PostgreSQL's:
// postgres_open.cc, or in a build without the backend postgres_not_built.cc, which throws
// std::invalid_argument(kPostgresNotBuiltMessage).
std::unique_ptr<Storage> open_postgres_storage(const StorageConfig& config);

// A description for start-up lines: "sqlite PATH" or "postgresql HOST/DB" (no password).
std::string describe_storage(const StorageConfig& config);

}  // namespace sandbox
