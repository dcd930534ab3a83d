/* The kernel's PAGEMAP_SCAN ioctl on /proc/self/pagemap (Linux 6.7+): the pages of a range that
 * match given categories, returned as runs, in one page-table walk per call. Write tracking
 * (uffd_tracking.c) asks it for written pages; a memory image's reset (memory_image.c) asks it
 * for private copies. Debian 12's kernel headers (6.1) predate it: the values below are the
 * kernel's UAPI (include/uapi/linux/fs.h). A kernel without it answers the ioctl with ENOTTY
 * (or EINVAL). */
#ifndef SANDBOX_WASM_PAGEMAP_SCAN_H_
#define SANDBOX_WASM_PAGEMAP_SCAN_H_

#include <linux/fs.h>
#include <stdint.h>

#ifndef PAGEMAP_SCAN
struct page_region {  // NOLINT(readability-identifier-naming): the kernel's UAPI name
  uint64_t start;
  uint64_t end;
  uint64_t categories;
};

struct pm_scan_arg {  // NOLINT(readability-identifier-naming): the kernel's UAPI name
  uint64_t size;
  uint64_t flags;
  uint64_t start;
  uint64_t end;
  uint64_t walk_end;
  uint64_t vec;
  uint64_t vec_len;
  uint64_t max_pages;
  uint64_t category_inverted;
  uint64_t category_mask;
  uint64_t category_anyof_mask;
  uint64_t return_mask;
};

/* Page categories. */
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_FILE (1 << 2) /* a page cache page, or shared anonymous: not a private copy */
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)

/* Flags. */
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

/* Runs asked for per PAGEMAP_SCAN call; a scan that fills them goes on where it stopped. */
#define SANDBOX_PAGEMAP_SCAN_RUNS 256

/* Scans [query.start, query.end) of `fd` (/proc/self/pagemap) with `query`'s flags, categories
 * and masks (its size, vec and vec_len are set here), and calls `each` with every run it
 * reports as byte offsets [from, to) from query.start, ascending: one ioctl per
 * SANDBOX_PAGEMAP_SCAN_RUNS runs, retried on EINTR, each counted in `*calls` when given (a
 * call that fails at once, with 1 counted, found the kernel without PAGEMAP_SCAN or without
 * what `query` asks: errno ENOTTY or EINVAL).
 * Returns 0, or -1 when a call fails (errno as the ioctl left it), reports a run outside the
 * range or makes no progress (errno EIO), or when `each` returns nonzero. */
int sandbox_pagemap_scan_runs(int fd, struct pm_scan_arg query,
                              int (*each)(uint64_t from, uint64_t to, void* context), void* context,
                              uint64_t* calls);

#endif /* SANDBOX_WASM_PAGEMAP_SCAN_H_ */
