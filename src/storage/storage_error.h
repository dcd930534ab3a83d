// StorageError: the storage backend failed (I/O, a corrupt database, a constraint violation,
// stored JSON that does not parse). The servers answer it with INTERNAL_ERROR; the operation
// that threw had no effect (every multi-statement write is one transaction).
#pragma once

#include <stdexcept>

namespace sandbox {

class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sandbox
