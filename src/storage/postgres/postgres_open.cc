// open_postgres_storage() of a build with the PostgreSQL backend (SANDBOX_WITH_POSTGRES=ON).
#include "storage/postgres/open_storage.h"
#include "storage/postgres/postgres_stores.h"

namespace sandbox {

bool postgres_built() { return true; }

std::unique_ptr<Storage> open_postgres_storage(const StorageConfig& config) {
  PostgresOptions options;
  options.lease = config.lease;
  options.max_connections = config.max_connections;
  return std::make_unique<PostgresStorage>(config.database_url, options);
}

}  // namespace sandbox
