// open_postgres_storage() of a build without the PostgreSQL backend (SANDBOX_WITH_POSTGRES=OFF):
// no libpq is linked, and a PostgreSQL database is refused with the reason.
#include <stdexcept>
#include <string>

#include "storage/postgres/open_storage.h"

namespace sandbox {

bool postgres_built() { return false; }

std::unique_ptr<Storage> open_postgres_storage(const StorageConfig&) {
  throw std::invalid_argument(std::string(kPostgresNotBuiltMessage));
}

}  // namespace sandbox
