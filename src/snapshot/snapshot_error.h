// SnapshotError: stored snapshot data that cannot be used (a corrupt record, a chunk that does
// not decompress or has the wrong size, an unknown codec, a delta from another engine image or
// with a chunk or page past its memory: docs/snapshot-format.md#delta-encoding). Thrown by the
// snapshot helpers. A restore that throws it fails the execute that needed the snapshot and
// leaves the stored record as it was (docs/snapshot-format.md#delta-encoding).
//
// At a server boundary it is a stored row that is not a valid row: ErrorKind::kInternal (500
// INTERNAL_ERROR "Stored snapshot is unreadable: ...", docs/errors.md), not retryable, as the
// same row fails the same way again.
#pragma once

#include <stdexcept>
#include <string>

#include <sandbox/errors.h>

namespace sandbox {

class SnapshotError : public std::runtime_error, public ClassifiedError {
 public:
  using std::runtime_error::runtime_error;
  ErrorKind kind() const noexcept override { return ErrorKind::kInternal; }
  std::string wire_message() const override {
    return std::string("Stored snapshot is unreadable: ") + what();
  }
};

}  // namespace sandbox
