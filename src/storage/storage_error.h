// StorageError: the storage backend failed (I/O, a corrupt database, a constraint violation,
// stored JSON that does not parse). Every server answers it as ErrorKind::kStorageFailure (500
// INTERNAL_ERROR "Storage failure: ...", docs/errors.md); the operation that threw had no effect
// (every multi-statement write is one transaction).
#pragma once

#include <stdexcept>
#include <string>

#include <sandbox/errors.h>

namespace sandbox {

class StorageError : public std::runtime_error, public ClassifiedError {
 public:
  using std::runtime_error::runtime_error;
  ErrorKind kind() const noexcept override { return ErrorKind::kStorageFailure; }
  std::string wire_message() const override { return std::string("Storage failure: ") + what(); }
};

}  // namespace sandbox
