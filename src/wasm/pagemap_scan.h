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
#include <string.h>
#include <sys/ioctl.h>

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

/* The arguments of one scan of [start, end) into `vec` (room for `vec_len` runs), with no
 * category, flag or mask set yet. */
static inline struct pm_scan_arg pagemap_scan_arg(uint64_t start, uint64_t end,
                                                  struct page_region* vec, uint64_t vec_len) {
  struct pm_scan_arg arg;
  memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.start = start;
  arg.end = end;
  arg.vec = (uintptr_t)vec;
  arg.vec_len = vec_len;
  return arg;
}

#endif /* SANDBOX_WASM_PAGEMAP_SCAN_H_ */
