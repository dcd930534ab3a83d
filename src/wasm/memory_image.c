/* Copy-on-write memory images (memory_image.h). */
#define _GNU_SOURCE
#include "wasm/memory_image.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wasm/pagemap_scan.h"
#include "wasm/runtime.h"
#include "wasm/write_tracking.h"

#define SMALL_PAGE ((size_t)4096)

typedef struct {
  const uint8_t* data; /* the memory's reservation */
  size_t bytes;        /* mapped from the image */
} mapped_image;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static mapped_image* g_mapped;
static size_t g_count, g_capacity;

static int zero_page(const uint8_t* p) {
  uint64_t acc = 0;
  for (size_t i = 0; i < SMALL_PAGE; i += sizeof acc) {
    uint64_t w;
    memcpy(&w, p + i, sizeof w);
    acc |= w;
  }
  return acc == 0;
}

static int write_all(int fd, const uint8_t* data, size_t bytes, off_t at) {
  while (bytes > 0) {
    ssize_t n = pwrite(fd, data, bytes, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    data += n;
    bytes -= (size_t)n;
    at += n;
  }
  return 0;
}

static int fill_and_seal(int fd, const uint8_t* data, size_t bytes) {
  if (ftruncate(fd, (off_t)bytes) != 0) return -1;
  /* Runs of non-zero 4 KiB pages, one write each; zero pages stay holes. */
  for (size_t at = 0; at < bytes;) {
    if (zero_page(data + at)) {
      at += SMALL_PAGE;
      continue;
    }
    size_t end = at + SMALL_PAGE;
    while (end < bytes && !zero_page(data + end)) end += SMALL_PAGE;
    if (write_all(fd, data + at, end - at, (off_t)at) != 0) return -1;
    at = end;
  }
  return fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
}

int sandbox_wasm_image_create(const uint8_t* data, size_t bytes) {
  if (bytes == 0 || bytes % SANDBOX_WASM_PAGE_SIZE != 0 ||
      bytes > (size_t)SANDBOX_WASM_MAX_PAGES * SANDBOX_WASM_PAGE_SIZE) {
    errno = EINVAL;
    return -1;
  }
  int fd = memfd_create("sandbox-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -1;
  if (fill_and_seal(fd, data, bytes) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

static mapped_image* find_locked(const uint8_t* data) {
  for (size_t i = 0; i < g_count; i++) {
    if (g_mapped[i].data == data) return &g_mapped[i];
  }
  return NULL;
}

static int remember(const uint8_t* data, size_t bytes) {
  int ok = 1;
  pthread_mutex_lock(&g_mu);
  if (g_count == g_capacity) {
    size_t capacity = g_capacity ? g_capacity * 2 : 64;
    mapped_image* grown = realloc(g_mapped, capacity * sizeof *grown);
    if (grown == NULL) {
      ok = 0;
    } else {
      g_mapped = grown;
      g_capacity = capacity;
    }
  }
  if (ok) g_mapped[g_count++] = (mapped_image){data, bytes};
  pthread_mutex_unlock(&g_mu);
  return ok;
}

size_t sandbox_wasm_forget_image(const uint8_t* data) {
  size_t bytes = 0;
  pthread_mutex_lock(&g_mu);
  mapped_image* m = find_locked(data);
  if (m != NULL) {
    bytes = m->bytes;
    *m = g_mapped[--g_count];
  }
  pthread_mutex_unlock(&g_mu);
  return bytes;
}

size_t sandbox_wasm_mapped_image_bytes(const wasm_rt_memory_t* memory) {
  if (memory == NULL || memory->data == NULL) return 0;
  size_t bytes = 0;
  pthread_mutex_lock(&g_mu);
  const mapped_image* m = find_locked(memory->data);
  if (m != NULL) bytes = m->bytes;
  pthread_mutex_unlock(&g_mu);
  return bytes;
}

/* [p, p + bytes) back to read-write anonymous memory of the reservation's kind. */
static int make_anonymous(uint8_t* p, size_t bytes) {
  if (mmap(p, bytes, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
    return -1;
  }
  (void)madvise(p, bytes, MADV_HUGEPAGE); /* as reserve() asks (memory.c) */
  return 0;
}

int sandbox_wasm_map_image(wasm_rt_memory_t* memory, int fd, size_t bytes) {
  if (memory == NULL || memory->data == NULL || fd < 0 || bytes == 0 ||
      bytes % SANDBOX_WASM_PAGE_SIZE != 0 || bytes > memory->size ||
      sandbox_wasm_is_tracked(memory) || sandbox_wasm_mapped_image_bytes(memory) != 0) {
    errno = EINVAL;
    return -1; /* nothing changed: the range is still the memory's anonymous pages */
  }
  /* MAP_NORESERVE like the reservation: a private writable mapping would otherwise be charged
   * in full against the commit limit although only written pages ever take memory. */
  if (mmap(memory->data, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE, fd,
           0) == MAP_FAILED) {
    /* A failed MAP_FIXED may already have unmapped the range: never leave a hole in a
     * reservation (another mapping could land in it). */
    int saved = errno;
    if (make_anonymous(memory->data, bytes) != 0) return -2;
    errno = saved;
    return -1;
  }
  if (!remember(memory->data, bytes)) {
    if (make_anonymous(memory->data, bytes) != 0) return -2;
    errno = ENOMEM;
    return -1;
  }
  return 0;
}

/* /proc/self/pagemap, opened once (-2: not yet tried, -1: unavailable). */
static int g_pagemap = -2;
static pthread_once_t g_pagemap_once = PTHREAD_ONCE_INIT;
static void open_pagemap(void) { g_pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC); }

int sandbox_wasm_image_open_in_child(void) {
  /* Single-threaded (just forked): no other thread can be inside the once. An inherited
   * descriptor reads the parent's page table: never use it. */
  g_pagemap_once = (pthread_once_t)PTHREAD_ONCE_INIT;
  g_pagemap = -2;
  pthread_once(&g_pagemap_once, open_pagemap);
  return g_pagemap;
}

#define PAGEMAP_PRESENT ((uint64_t)1 << 63)
#define PAGEMAP_SWAPPED ((uint64_t)1 << 62)
#define PAGEMAP_FILE ((uint64_t)1 << 61) /* file page or shared anonymous */
#define PAGEMAP_BATCH 512
/* Whether resets may ask PAGEMAP_SCAN (1 until a kernel refuses it, or a test turns it off), and
 * the pagemap calls resets made. */
static atomic_int g_use_scan = 1;
static atomic_uint_least64_t g_pagemap_calls;

void sandbox_wasm_image_use_pagemap_scan(int enabled) { atomic_store(&g_use_scan, enabled != 0); }

uint64_t sandbox_wasm_image_pagemap_calls(void) { return atomic_load(&g_pagemap_calls); }

/* Where a scan's private runs go: the reset's memory and the image. */
typedef struct Rewrite {
  uint8_t* memory;
  const uint8_t* image;
} Rewrite;

static int rewrite_run(uint64_t from, uint64_t to, void* context) {
  const Rewrite* r = context;
  memcpy(r->memory + from, r->image + from, (size_t)(to - from));
  return 0;
}

/* Copies `image` back over the runs of [p, p + bytes) that PAGEMAP_SCAN reports as private
 * copies (present or swapped, and not a file page): one call per SANDBOX_PAGEMAP_SCAN_RUNS
 * runs, where reading pagemap takes one call per PAGEMAP_BATCH pages of the range and copies an
 * entry for each (docs/guest-abi.md#copy-on-write-mapping). Returns 0; 1 when the kernel has no
 * PAGEMAP_SCAN (nothing copied: the caller reads pagemap); -1 when a scan fails or makes no
 * progress. */
static int rewrite_private_runs(uint8_t* p, const uint8_t* image, size_t bytes) {
  struct pm_scan_arg query = {
      .start = (uintptr_t)p,
      .end = (uintptr_t)p + bytes,
      /* Not a file page (inverted), and present or swapped. */
      .category_inverted = PAGE_IS_FILE,
      .category_mask = PAGE_IS_FILE,
      .category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
      .return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
  };
  Rewrite rewrite = {p, image};
  uint64_t calls = 0;
  const int scanned = sandbox_pagemap_scan_runs(g_pagemap, query, rewrite_run, &rewrite, &calls);
  atomic_fetch_add(&g_pagemap_calls, calls);
  if (scanned == 0) return 0;
  if (calls == 1 && (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP)) {
    atomic_store(&g_use_scan, 0);
    return 1;
  }
  return -1;
}

/* Copies `image` back over the 4 KiB pages of [p, p + bytes) that hold private copies (written
 * since mapped): PAGEMAP_SCAN's runs where the kernel has it, else /proc/self/pagemap's entries
 * (present or swapped and not a file page). Pages never written still map the image. Returns
 * 0, or -1 when pagemap cannot be read. */
static int rewrite_private_pages(uint8_t* p, const uint8_t* image, size_t bytes) {
  pthread_once(&g_pagemap_once, open_pagemap);
  if (g_pagemap < 0) return -1;
  if (atomic_load(&g_use_scan)) {
    const int scanned = rewrite_private_runs(p, image, bytes);
    if (scanned <= 0) return scanned;
  }
  uint64_t entries[PAGEMAP_BATCH];
  const size_t pages = bytes / SMALL_PAGE;
  for (size_t first = 0; first < pages; first += PAGEMAP_BATCH) {
    const size_t n = pages - first < PAGEMAP_BATCH ? pages - first : PAGEMAP_BATCH;
    const off_t at = (off_t)(((uintptr_t)p / SMALL_PAGE + first) * sizeof(uint64_t));
    atomic_fetch_add(&g_pagemap_calls, 1);
    if (pread(g_pagemap, entries, n * sizeof(uint64_t), at) != (ssize_t)(n * sizeof(uint64_t))) {
      return -1;
    }
    for (size_t i = 0; i < n; i++) {
      const uint64_t e = entries[i];
      if ((e & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)) != 0 && (e & PAGEMAP_FILE) == 0) {
        const size_t off = (first + i) * SMALL_PAGE;
        memcpy(p + off, image + off, SMALL_PAGE);
      }
    }
  }
  return 0;
}

int sandbox_wasm_reset_mapped_image(wasm_rt_memory_t* memory, const uint8_t* image) {
  const size_t bytes = sandbox_wasm_mapped_image_bytes(memory);
  if (bytes == 0 || sandbox_wasm_is_tracked(memory)) return -1;
  /* Past the image: anonymous memory, back to zero. */
  if (memory->size > bytes &&
      madvise(memory->data + bytes, memory->size - bytes, MADV_DONTNEED) != 0) {
    return -1;
  }
  /* With the image's bytes at hand, only the pages written are rewritten: they stay private and
   * mapped, and the next run neither faults on them nor on the pages it only reads (dropping
   * them would cost a fault per page touched again). Otherwise the private copies go. */
  if (image != NULL && rewrite_private_pages(memory->data, image, bytes) == 0) return 0;
  if (madvise(memory->data, bytes, MADV_DONTNEED) != 0) return -1;
  return 0;
}
