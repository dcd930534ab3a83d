// populate_write: makes a run of pages of a private mapping ready for writing in one system call
// (madvise MADV_POPULATE_WRITE, Linux 5.14), so the writes that follow take no page fault each.
// Where a fault is costly (nested virtualisation: 10-20 µs each), a run made private at once
// costs about half as much per page (docs/snapshot-format.md#restore). Best effort: a kernel
// without it answers EINVAL, and the writes take their faults as before.
#pragma once

#include <cstddef>

#include <sys/mman.h>

namespace sandbox {

#ifdef MADV_POPULATE_WRITE
inline constexpr int kMadvPopulateWrite = MADV_POPULATE_WRITE;
#else
inline constexpr int kMadvPopulateWrite = 23;  // Linux 5.14's value; older kernels answer EINVAL
#endif

// `at` must be page-aligned; the range must lie in a writable mapping.
inline void populate_write(void* at, std::size_t bytes) {
  (void)::madvise(at, bytes, kMadvPopulateWrite);
}

}  // namespace sandbox
