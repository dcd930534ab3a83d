/* PAGEMAP_SCAN's loop over a range (pagemap_scan.h). */
#include "wasm/pagemap_scan.h"

#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>

int sandbox_pagemap_scan_runs(int fd, struct pm_scan_arg query,
                              int (*each)(uint64_t from, uint64_t to, void* context), void* context,
                              uint64_t* calls) {
  struct page_region runs[SANDBOX_PAGEMAP_SCAN_RUNS];
  const uint64_t start = query.start;
  const uint64_t end = query.end;
  query.size = sizeof query;
  query.vec = (uintptr_t)runs;
  query.vec_len = SANDBOX_PAGEMAP_SCAN_RUNS;
  while (query.start < end) {
    const int found = ioctl(fd, PAGEMAP_SCAN, &query);
    if (found < 0 && errno == EINTR) continue;
    if (calls != NULL) ++*calls;
    if (found < 0) return -1;
    for (int i = 0; i < found; i++) {
      if (runs[i].start < query.start || runs[i].end > end || runs[i].start >= runs[i].end) {
        errno = EIO;
        return -1;
      }
      if (each(runs[i].start - start, runs[i].end - start, context) != 0) return -1;
    }
    if (query.walk_end <= query.start) { /* no progress: never loop forever */
      errno = EIO;
      return -1;
    }
    query.start = query.walk_end;
  }
  return 0;
}
