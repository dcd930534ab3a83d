#define _GNU_SOURCE
#include "wasm/uffd_tracking.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Debian 12's kernel headers (6.1) predate asynchronous write-protection (6.7): the values
 * below are the kernel's UAPI (include/uapi/linux/userfaultfd.h and fs.h). */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef UFFD_FEATURE_WP_HUGETLBFS_SHMEM
#define UFFD_FEATURE_WP_HUGETLBFS_SHMEM (1 << 12)
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

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

#define PAGE_IS_WRITTEN (1 << 1)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

#define SMALL_PAGE ((size_t)4096)
#define WASM_PAGE ((size_t)65536)
/* Regions returned per PAGEMAP_SCAN call; a scan that fills them continues where it stopped. */
#define SCAN_REGIONS 256

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_uffd = -1;
static int g_pagemap = -1;
static int g_available;
/* The process that opened them: both descriptors act on its address space, so a forked child
 * (which keeps them) must not use them. */
static pid_t g_pid;

static int usable(void) { return g_uffd >= 0 && getpid() == g_pid; }

static int open_uffd(uint64_t features) {
  const int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
  if (fd < 0) return -1;
  struct uffdio_api api;
  memset(&api, 0, sizeof api);
  api.api = UFFD_API;
  api.features = features;
  if (ioctl(fd, UFFDIO_API, &api) != 0 || (api.features & UFFD_FEATURE_WP_ASYNC) == 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* A written page is reported and an unwritten one is not, on a scratch anonymous mapping. */
static int probe(void) {
  const size_t length = 2 * SMALL_PAGE;
  uint8_t* p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 0;
  int ok = 0;
  uint32_t pages[1];
  if (sandbox_uffd_arm(p, length, length) == 0) {
    p[SMALL_PAGE] = 1;
    uint64_t written = 0;
    ok = sandbox_uffd_collect(p, length, pages, NULL, &written) == 1 && written == 1;
    ok = ok && sandbox_uffd_collect(p, length, pages, NULL, &written) == 0;
    sandbox_uffd_disarm(p, length);
  }
  munmap(p, length);
  return ok;
}

static void init(void) {
  g_pid = getpid();
  /* Write-protecting shmem (the memfd image mapped privately) may need the shmem feature on
   * kernels that still tell it apart; without it, only anonymous memory is tracked. */
  g_uffd = open_uffd(UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED |
                     UFFD_FEATURE_WP_HUGETLBFS_SHMEM);
  if (g_uffd < 0) g_uffd = open_uffd(UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED);
  if (g_uffd < 0) return;
  g_pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (g_pagemap < 0 || !probe()) {
    if (g_pagemap >= 0) close(g_pagemap);
    close(g_uffd);
    g_pagemap = g_uffd = -1;
    return;
  }
  g_available = 1;
}

int sandbox_uffd_available(void) {
  pthread_once(&g_once, init);
  return g_available && usable();
}

int sandbox_uffd_open_in_child(int* fds) {
  /* Single-threaded (just forked): no other thread can be inside the once. The descriptors the
   * parent opened act on the parent's address space and are not ours to close (the caller
   * closes what it does not keep). */
  g_once = (pthread_once_t)PTHREAD_ONCE_INIT;
  g_uffd = g_pagemap = -1;
  g_available = 0;
  pthread_once(&g_once, init);
  if (!g_available) return 0;
  fds[0] = g_uffd;
  fds[1] = g_pagemap;
  return 2;
}

static int write_protect(uint8_t* base, size_t length, int protect) {
  struct uffdio_writeprotect wp;
  memset(&wp, 0, sizeof wp);
  wp.range.start = (uintptr_t)base;
  wp.range.len = length;
  wp.mode = protect ? UFFDIO_WRITEPROTECT_MODE_WP : 0;
  return ioctl(g_uffd, UFFDIO_WRITEPROTECT, &wp) == 0 ? 0 : -1;
}

int sandbox_uffd_arm(uint8_t* base, size_t reserved, size_t size) {
  /* g_uffd is set before the probe arms its scratch mapping (init() runs this under the once). */
  if (!usable()) return -1;
  struct uffdio_register reg;
  memset(&reg, 0, sizeof reg);
  reg.range.start = (uintptr_t)base;
  reg.range.len = reserved;
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  if (ioctl(g_uffd, UFFDIO_REGISTER, &reg) != 0) return -1;
  if (size != 0 && write_protect(base, size, 1) != 0) {
    sandbox_uffd_disarm(base, reserved);
    return -1;
  }
  return 0;
}

int sandbox_uffd_protect(uint8_t* base, size_t length) {
  if (!usable()) return -1;
  return length == 0 ? 0 : write_protect(base, length, 1);
}

int64_t sandbox_uffd_collect(uint8_t* base, size_t size, uint32_t* out, uint16_t* blocks,
                             uint64_t* written_4k) {
  if (g_pagemap < 0 || !usable()) return -1;
  struct page_region regions[SCAN_REGIONS];
  const uint64_t start = (uintptr_t)base;
  const uint64_t end = start + size;
  uint64_t at = start;
  uint64_t small = 0;
  int64_t n = 0;
  while (at < end) {
    struct pm_scan_arg arg;
    memset(&arg, 0, sizeof arg);
    arg.size = sizeof arg;
    /* CHECK_WPASYNC: a part of the range that lost its registration (a mapping replaced with
     * MAP_FIXED) fails the scan instead of being skipped silently. */
    arg.flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC;
    arg.start = at;
    arg.end = end;
    arg.vec = (uintptr_t)regions;
    arg.vec_len = SCAN_REGIONS;
    arg.category_mask = PAGE_IS_WRITTEN;
    arg.return_mask = PAGE_IS_WRITTEN;
    const int found = ioctl(g_pagemap, PAGEMAP_SCAN, &arg);
    if (found < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    for (int i = 0; i < found; i++) {
      const uint64_t from = regions[i].start - start;
      const uint64_t to = regions[i].end - start;
      small += (to - from) / SMALL_PAGE;
      const uint32_t first = (uint32_t)(from / WASM_PAGE);
      const uint32_t last = (uint32_t)((to - 1) / WASM_PAGE);
      for (uint32_t p = first; p <= last; p++) {
        /* Regions come in address order; one 64 KiB page may span two of them. */
        if (n == 0 || out[n - 1] != p) {
          out[n] = p;
          if (blocks != NULL) blocks[n] = 0;
          n++;
        }
        if (blocks != NULL) {
          const uint64_t page_start = (uint64_t)p * WASM_PAGE;
          const uint64_t lo = from > page_start ? from : page_start;
          const uint64_t hi = to < page_start + WASM_PAGE ? to : page_start + WASM_PAGE;
          for (uint64_t b = (lo - page_start) / SMALL_PAGE; b < (hi - page_start) / SMALL_PAGE;
               b++) {
            blocks[n - 1] |= (uint16_t)(1u << b);
          }
        }
      }
    }
    if (arg.walk_end <= at) return -1; /* no progress: never loop forever */
    at = arg.walk_end;
  }
  if (written_4k != NULL) *written_4k = small;
  return n;
}

void sandbox_uffd_disarm(uint8_t* base, size_t reserved) {
  if (!usable()) return;
  struct uffdio_range range;
  range.start = (uintptr_t)base;
  range.len = reserved;
  (void)ioctl(g_uffd, UFFDIO_UNREGISTER, &range);
}
