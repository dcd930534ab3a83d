#define _GNU_SOURCE
#include "wasm/uffd_tracking.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fast_hash.h"
#include "wasm/pagemap_scan.h"

/* Debian 12's kernel headers (6.1) predate asynchronous write-protection (6.7): the values
 * below are the kernel's UAPI (include/uapi/linux/userfaultfd.h); PAGEMAP_SCAN's are in
 * pagemap_scan.h. */
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

#define SMALL_PAGE ((size_t)4096)
#define WASM_PAGE ((size_t)65536)

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_uffd = -1;
static int g_pagemap = -1;
static int g_available;
/* The key of the hot pages' hashes, drawn per process: guest code cannot choose bytes whose
 * change the hash would miss. 0 until drawn; hot pages are off when it cannot be drawn. */
static uint64_t g_hot_seed;
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
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof seed, 0) == (ssize_t)sizeof seed) g_hot_seed = seed | 1;
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

/* Adds the 4 KiB pages [from, to) (byte offsets from the range's start, ascending across calls)
 * to the report: the 64 KiB pages holding them into out[0..*n) and their blocks into `blocks`. */
static void report(uint64_t from, uint64_t to, uint32_t* out, uint16_t* blocks, int64_t* n) {
  const uint32_t first = (uint32_t)(from / WASM_PAGE);
  const uint32_t last = (uint32_t)((to - 1) / WASM_PAGE);
  for (uint32_t p = first; p <= last; p++) {
    /* Regions come in address order; one 64 KiB page may span two of them. */
    if (*n == 0 || out[*n - 1] != p) {
      out[*n] = p;
      if (blocks != NULL) blocks[*n] = 0;
      (*n)++;
    }
    if (blocks != NULL) {
      const uint64_t page_start = (uint64_t)p * WASM_PAGE;
      const uint64_t lo = from > page_start ? from : page_start;
      const uint64_t hi = to < page_start + WASM_PAGE ? to : page_start + WASM_PAGE;
      for (uint64_t b = (lo - page_start) / SMALL_PAGE; b < (hi - page_start) / SMALL_PAGE; b++) {
        blocks[*n - 1] |= (uint16_t)(1u << b);
      }
    }
  }
}

/* Calls `each` for every run of written 4 KiB pages [from, to) of [base, base + size) (byte
 * offsets from base, ascending), protecting them again in the same walk with `protect`.
 * Returns 0, or -1 when a scan fails or makes no progress (writes may then have been missed),
 * or when `each` returns nonzero. */
static int scan_written(uint8_t* base, size_t size, int protect,
                        int (*each)(uint64_t from, uint64_t to, void* context), void* context) {
  if (g_pagemap < 0 || !usable()) return -1;
  struct pm_scan_arg query = {
      .start = (uintptr_t)base,
      .end = (uintptr_t)base + size,
      /* CHECK_WPASYNC: a part of the range that lost its registration (a mapping replaced with
       * MAP_FIXED) fails the scan instead of being skipped silently. */
      .flags = PM_SCAN_CHECK_WPASYNC | (protect ? PM_SCAN_WP_MATCHING : 0),
      .category_mask = PAGE_IS_WRITTEN,
      .return_mask = PAGE_IS_WRITTEN,
  };
  return sandbox_pagemap_scan_runs(g_pagemap, query, each, context, NULL) == 0 ? 0 : -1;
}

/* What sandbox_uffd_collect gathers. */
typedef struct Report {
  uint32_t* out;
  uint16_t* blocks;
  int64_t n;
  uint64_t small;
} Report;

static int report_run(uint64_t from, uint64_t to, void* context) {
  Report* r = context;
  r->small += (to - from) / SMALL_PAGE;
  report(from, to, r->out, r->blocks, &r->n);
  return 0;
}

int64_t sandbox_uffd_collect(uint8_t* base, size_t size, uint32_t* out, uint16_t* blocks,
                             uint64_t* written_4k) {
  Report r = {out, blocks, 0, 0};
  if (scan_written(base, size, 1, report_run, &r) != 0) return -1;
  if (written_4k != NULL) *written_4k = r.small;
  return r.n;
}

int sandbox_uffd_hot_init(sandbox_uffd_hot* hot, uint32_t capacity) {
  memset(hot, 0, sizeof *hot);
  if (capacity == 0 || g_hot_seed == 0) return 0;
  hot->pages = calloc(capacity, sizeof *hot->pages);
  hot->spare = calloc(capacity, sizeof *hot->spare);
  if (hot->pages == NULL || hot->spare == NULL) {
    sandbox_uffd_hot_free(hot);
    return -1;
  }
  hot->capacity = capacity;
  return 0;
}

void sandbox_uffd_hot_free(sandbox_uffd_hot* hot) {
  free(hot->pages);
  free(hot->spare);
  memset(hot, 0, sizeof *hot);
}

/* The 4 KiB pages to protect again (or to unprotect), gathered into runs: one ioctl per run. */
typedef struct ProtectRuns {
  uint8_t* base;
  int protect;       /* 1: write-protect the runs; 0: take the protection off */
  uint32_t from, to; /* the pending run [from, to) of 4 KiB pages; empty when equal */
  int failed;
  uint64_t calls; /* ioctls made */
} ProtectRuns;

static void flush_run(ProtectRuns* r) {
  if (r->to > r->from && !r->failed) {
    r->calls++;
    if (write_protect(r->base + (size_t)r->from * SMALL_PAGE,
                      (size_t)(r->to - r->from) * SMALL_PAGE, r->protect) != 0) {
      r->failed = 1;
    }
  }
  r->from = r->to = 0;
}

static void add_to_run(ProtectRuns* r, uint32_t page) {
  if (r->to == page && r->to > r->from) {
    r->to++;
    return;
  }
  flush_run(r);
  r->from = page;
  r->to = page + 1;
}

/* add_to_run for pages to protect, when every page between the pending run and `page` is
 * protected already (the caller ends the run at each page it leaves writable). */
static void add_to_protected_run(ProtectRuns* r, uint32_t page) {
  if (r->to > r->from && page >= r->to && page - r->to <= SANDBOX_UFFD_PROTECT_MERGE_GAP) {
    r->to = page + 1;
    return;
  }
  add_to_run(r, page);
}

/* What sandbox_uffd_collect_hot gathers and decides, run by run. */
typedef struct HotCollection {
  uint8_t* base;
  sandbox_uffd_hot* hot;
  const sandbox_uffd_hot_page* old; /* the hot pages of the last collection */
  uint32_t old_count, old_at;
  sandbox_uffd_hot_page* next; /* this collection's */
  uint32_t next_count;
  int round; /* a protection round: quiet hot pages are protected */
  ProtectRuns runs;
  Report report;
} HotCollection;

static int hot_run(uint64_t from, uint64_t to, void* context) {
  HotCollection* c = context;
  const uint32_t first = (uint32_t)(from / SMALL_PAGE);
  const uint32_t last = (uint32_t)(to / SMALL_PAGE);
  for (uint32_t q = first; q < last; q++) {
    /* A hot page the scan does not list was protected by someone else (growth protects only
     * new pages): a write to it faults and is listed, so it is simply dropped. */
    while (c->old_at < c->old_count && c->old[c->old_at].page < q) c->old_at++;
    const uint8_t* bytes = c->base + (size_t)q * SMALL_PAGE;
    const int was_hot = c->old_at < c->old_count && c->old[c->old_at].page == q;
    const int room = c->next_count < c->hot->capacity;
    const uint64_t hash = was_hot || room ? sandbox_hash64(bytes, SMALL_PAGE, g_hot_seed) : 0;
    uint32_t quiet = 0;
    if (was_hot) {
      quiet = c->old[c->old_at].hash == hash ? c->old[c->old_at].quiet + 1 : 0;
      c->old_at++;
    }
    if (quiet == 0)
      report_run((uint64_t)q * SMALL_PAGE, (uint64_t)(q + 1) * SMALL_PAGE, &c->report);
    if ((quiet < SANDBOX_UFFD_HOT_QUIET_COLLECTIONS || !c->round) && room) {
      /* Stays writable: no run of pages to protect may span it. */
      flush_run(&c->runs);
      c->next[c->next_count].hash = hash;
      c->next[c->next_count].page = q;
      c->next[c->next_count].quiet = quiet;
      c->next_count++;
    } else {
      /* The scan lists every page whose protection is off, so the pages since the last one it
       * listed are protected. */
      add_to_protected_run(&c->runs, q);
    }
  }
  return c->runs.failed;
}

int64_t sandbox_uffd_collect_hot(uint8_t* base, size_t size, sandbox_uffd_hot* hot, uint32_t* out,
                                 uint16_t* blocks, uint64_t* written_4k) {
  if (hot == NULL || hot->capacity == 0) {
    return sandbox_uffd_collect(base, size, out, blocks, written_4k);
  }
  hot->collections++;
  HotCollection c = {
      .base = base,
      .hot = hot,
      .old = hot->pages,
      .old_count = hot->count,
      .next = hot->spare,
      .round = hot->collections % SANDBOX_UFFD_HOT_PROTECT_PERIOD == 0,
      .runs = {.base = base, .protect = 1},
      .report = {.out = out, .blocks = blocks},
  };
  hot->count = 0; /* until the collection succeeds */
  /* Without protecting: every page whose protection is off is listed, the hot ones included,
   * and only the ones that go quiet are protected again (hot_run). */
  const int scanned = scan_written(base, size, 0, hot_run, &c);
  if (scanned == 0) flush_run(&c.runs);
  hot->protect_calls += c.runs.calls;
  if (scanned != 0 || c.runs.failed) return -1;
  hot->spare = hot->pages;
  hot->pages = c.next;
  hot->count = c.next_count;
  if (written_4k != NULL) *written_4k = c.report.small;
  return c.report.n;
}

int64_t sandbox_uffd_hot_seed(uint8_t* base, size_t size, sandbox_uffd_hot* hot,
                              const uint32_t* pages, size_t n) {
  if (hot->count != 0 || !usable()) return -1;
  ProtectRuns runs = {.base = base, .protect = 0}; /* unprotecting the seeded pages */
  for (size_t i = 0; i < n && hot->count < hot->capacity; i++) {
    const uint32_t q = pages[i];
    if ((uint64_t)(q + 1) * SMALL_PAGE > size ||
        (hot->count > 0 && q <= hot->pages[hot->count - 1].page)) {
      hot->count = 0;
      return -1;
    }
    hot->pages[hot->count].hash =
        sandbox_hash64(base + (size_t)q * SMALL_PAGE, SMALL_PAGE, g_hot_seed);
    hot->pages[hot->count].page = q;
    hot->pages[hot->count].quiet = 0;
    hot->count++;
    add_to_run(&runs, q);
  }
  flush_run(&runs);
  if (runs.failed) {
    hot->count = 0;
    return -1;
  }
  return hot->count;
}

void sandbox_uffd_disarm(uint8_t* base, size_t reserved) {
  if (!usable()) return;
  struct uffdio_range range;
  range.start = (uintptr_t)base;
  range.len = reserved;
  (void)ioctl(g_uffd, UFFDIO_UNREGISTER, &range);
}
