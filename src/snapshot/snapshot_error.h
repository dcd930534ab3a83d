// SnapshotError: stored snapshot data that cannot be used (a corrupt record, a chunk that does
// not decompress or has the wrong size, an unknown codec, a delta from another engine image or
// with a chunk or page past its memory: docs/snapshot-format.md#delta-encoding). Thrown by the
// snapshot helpers. A restore that throws it fails the execute that needed the snapshot and
// leaves the stored record as it was (docs/snapshot-format.md#delta-encoding).
#pragma once

#include <stdexcept>

namespace sandbox {

class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sandbox
