// SnapshotError: stored snapshot data that cannot be used (a corrupt record, a chunk that does
// not decompress or has the wrong size, an unknown codec). Thrown by the snapshot helpers; the
// interpreter server treats it like a missing snapshot of a stale build (boot fresh).
#pragma once

#include <stdexcept>

namespace sandbox {

class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sandbox
