#include "storage/postgres/open_storage.h"

#include <climits>
#include <stdexcept>

#include <unistd.h>

#include "storage/sqlite/sqlite_stores.h"

namespace sandbox {

bool is_postgres_url(std::string_view url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://") ||
         url.find('=') != std::string_view::npos;
}

std::string default_node_id(std::string_view database_url) {
  if (database_url.empty()) return "local";
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "local";
  return name;
}

std::unique_ptr<Storage> open_storage(const StorageConfig& config) {
  if (config.lease.node_id.empty()) throw std::invalid_argument("the node id must not be empty");
  if (config.lease.ttl_ms < 1) throw std::invalid_argument("the lease TTL must be at least 1 ms");
  if (config.database_url.empty()) {
    SqliteOptions options;
    options.lease = config.lease;
    return std::make_unique<SqliteStorage>(config.sqlite_path, options);
  }
  if (!is_postgres_url(config.database_url)) {
    throw std::invalid_argument("unsupported database URL '" + config.database_url +
                                "' (expected postgresql://USER@HOST:PORT/DBNAME or libpq "
                                "key=value pairs)");
  }
  return open_postgres_storage(config);
}

std::string describe_storage(const StorageConfig& config) {
  if (config.database_url.empty()) return "sqlite " + config.sqlite_path;
  std::string url = config.database_url;
  // Hide a password in a URI (scheme://user:password@host) or in key=value pairs.
  if (const auto scheme = url.find("://"); scheme != std::string::npos) {
    const auto at = url.find('@', scheme + 3);
    const auto colon = url.find(':', scheme + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at) {
      url.replace(colon + 1, at - colon - 1, "***");
    }
  }
  if (const auto pw = url.find("password="); pw != std::string::npos) {
    const auto end = url.find(' ', pw);
    url.replace(pw + 9, (end == std::string::npos ? url.size() : end) - pw - 9, "***");
  }
  return "postgresql " + url;
}

}  // namespace sandbox
