#define _GNU_SOURCE
#include "wasm/write_tracking.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "wasm/runtime.h"
#include "wasm/uffd_tracking.h"

#define MAX_TRACKED 1024
#define BITMAP_WORDS ((SANDBOX_WASM_MAX_PAGES + 64) / 64)

typedef struct Tracker {
  /* The memory being tracked (NULL: slot free). Read by the signal handler. */
  wasm_rt_memory_t* volatile memory;
  uint8_t* volatile base;
  /* SANDBOX_WASM_TRACK_UFFD or _MPROTECT; set before `memory` is published. The signal handler
   * ignores uffd trackers (their pages never fault). */
  volatile int mode;
  /* uffd mode: the pages left writable after a collection (uffd_tracking.h). Never read by
   * the signal handler. */
  sandbox_uffd_hot hot;
  /* mprotect mode: one bit per page; set iff page p is writable. */
  uint64_t dirty[BITMAP_WORDS];
} Tracker;

static int is_dirty(const Tracker* t, uint32_t p) {
  return (int)((t->dirty[p / 64] >> (p % 64)) & 1);
}
static void set_dirty(Tracker* t, uint32_t p) { t->dirty[p / 64] |= (uint64_t)1 << (p % 64); }
static void clear_dirty(Tracker* t, uint32_t p) { t->dirty[p / 64] &= ~((uint64_t)1 << (p % 64)); }

static Tracker g_trackers[MAX_TRACKED];
/* One past the highest slot ever claimed: lookups scan no further. A tracker is 16 KiB (its
 * bitmap), so scanning all 1024 slots for an untracked memory (every stateless run asks) touched
 * 1024 cache lines and as many TLB entries, about 2% of a Lua `1+1`'s CPU time. */
static size_t g_slots_used;

static size_t slots_used(void) { return __atomic_load_n(&g_slots_used, __ATOMIC_ACQUIRE); }

static Tracker* find(const wasm_rt_memory_t* memory) {
  if (memory == NULL) return NULL;
  const size_t used = slots_used();
  for (size_t i = 0; i < used; i++) {
    if (__atomic_load_n(&g_trackers[i].memory, __ATOMIC_ACQUIRE) == memory) return &g_trackers[i];
  }
  return NULL;
}

static pthread_once_t g_default_once = PTHREAD_ONCE_INIT;
static int g_default_mode = SANDBOX_WASM_TRACK_AUTO;
static uint32_t g_hot_limit = SANDBOX_WASM_HOT_PAGES;

static void read_default(void) {
  const char* hot = getenv("SANDBOX_HOT_PAGES");
  if (hot != NULL && *hot != '\0') {
    char* rest = NULL;
    const unsigned long limit = strtoul(hot, &rest, 10);
    if (*rest == '\0' && limit <= SANDBOX_WASM_MAX_HOT_PAGES) {
      __atomic_store_n(&g_hot_limit, (uint32_t)limit, __ATOMIC_RELAXED);
    }
  }
  const char* v = getenv("SANDBOX_WRITE_TRACKING");
  int mode = SANDBOX_WASM_TRACK_AUTO;
  if (v != NULL) {
    if (strcmp(v, "uffd") == 0) mode = SANDBOX_WASM_TRACK_UFFD;
    if (strcmp(v, "mprotect") == 0) mode = SANDBOX_WASM_TRACK_MPROTECT;
    if (strcmp(v, "hash") == 0 || strcmp(v, "none") == 0) mode = SANDBOX_WASM_TRACK_NONE;
  }
  __atomic_store_n(&g_default_mode, mode, __ATOMIC_RELAXED);
}

sandbox_wasm_tracking_mode sandbox_wasm_default_tracking_mode(void) {
  pthread_once(&g_default_once, read_default);
  return (sandbox_wasm_tracking_mode)__atomic_load_n(&g_default_mode, __ATOMIC_RELAXED);
}

void sandbox_wasm_set_default_tracking_mode(sandbox_wasm_tracking_mode mode) {
  pthread_once(&g_default_once, read_default);
  __atomic_store_n(&g_default_mode, (int)mode, __ATOMIC_RELAXED);
}

uint32_t sandbox_wasm_hot_page_limit(void) {
  pthread_once(&g_default_once, read_default);
  return __atomic_load_n(&g_hot_limit, __ATOMIC_RELAXED);
}

void sandbox_wasm_set_hot_page_limit(uint32_t pages) {
  pthread_once(&g_default_once, read_default);
  if (pages > SANDBOX_WASM_MAX_HOT_PAGES) pages = SANDBOX_WASM_MAX_HOT_PAGES;
  __atomic_store_n(&g_hot_limit, pages, __ATOMIC_RELAXED);
}

int sandbox_wasm_uffd_tracking_available(void) { return sandbox_uffd_available(); }

/* Stops tracking (the slot is released last: the signal handler may be reading it). */
static void release(Tracker* t, wasm_rt_memory_t* memory) {
  if (t->mode == SANDBOX_WASM_TRACK_UFFD) {
    sandbox_uffd_disarm(memory->data, SANDBOX_WASM_RESERVATION);
    sandbox_uffd_hot_free(&t->hot);
  } else if (memory->size != 0) {
    mprotect(memory->data, memory->size, PROT_READ | PROT_WRITE);
  }
  __atomic_store_n(&t->base, NULL, __ATOMIC_RELEASE);
  __atomic_store_n(&t->memory, NULL, __ATOMIC_RELEASE);
}

/* Arms `t` (claimed, not published) in `mode`; 0 or -1. */
static int arm(Tracker* t, wasm_rt_memory_t* memory, int mode) {
  memset(t->dirty, 0, sizeof t->dirty);
  t->mode = mode;
  if (mode == SANDBOX_WASM_TRACK_UFFD) {
    /* Without room for hot pages every written page is protected again: still exact. */
    if (sandbox_uffd_hot_init(&t->hot, sandbox_wasm_hot_page_limit()) != 0) {
      sandbox_uffd_hot_init(&t->hot, 0);
    }
    if (sandbox_uffd_arm(memory->data, SANDBOX_WASM_RESERVATION, memory->size) != 0) {
      sandbox_uffd_hot_free(&t->hot);
      return -1;
    }
    return 0;
  }
  __atomic_store_n(&t->base, memory->data, __ATOMIC_RELEASE);
  if (memory->size != 0 && mprotect(memory->data, memory->size, PROT_READ) != 0) {
    __atomic_store_n(&t->base, NULL, __ATOMIC_RELEASE);
    return -1;
  }
  return 0;
}

int sandbox_wasm_track_writes_with(wasm_rt_memory_t* memory, sandbox_wasm_tracking_mode mode) {
  if (memory == NULL || memory->data == NULL) return -1;
  if (mode == SANDBOX_WASM_TRACK_NONE) {
    sandbox_wasm_untrack_writes(memory);
    return -1;
  }
  /* Already tracked: start over (e.g. after the memory was remapped). */
  sandbox_wasm_untrack_writes(memory);
  const int try_uffd = (mode == SANDBOX_WASM_TRACK_UFFD || mode == SANDBOX_WASM_TRACK_AUTO) &&
                       sandbox_uffd_available();
  if (mode == SANDBOX_WASM_TRACK_UFFD && !try_uffd) return -1;
  for (size_t i = 0; i < MAX_TRACKED; i++) {
    Tracker* t = &g_trackers[i];
    wasm_rt_memory_t* expected = NULL;
    /* Claim the slot with a placeholder so no other thread takes it meanwhile. */
    if (!__atomic_compare_exchange_n(&t->memory, &expected, (wasm_rt_memory_t*)(uintptr_t)1, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      continue;
    }
    /* Raised before the memory is published in the slot, so a lookup that can see it scans it. */
    size_t used = slots_used();
    while (used < i + 1 && !__atomic_compare_exchange_n(&g_slots_used, &used, i + 1, 0,
                                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
    int armed = -1;
    if (try_uffd) armed = arm(t, memory, SANDBOX_WASM_TRACK_UFFD);
    /* Per memory: a mapping the kernel will not write-protect asynchronously uses mprotect. */
    if (armed != 0 && mode != SANDBOX_WASM_TRACK_UFFD) {
      armed = arm(t, memory, SANDBOX_WASM_TRACK_MPROTECT);
    }
    __atomic_store_n(&t->memory, armed == 0 ? memory : NULL, __ATOMIC_RELEASE);
    return armed;
  }
  return -1;
}

int sandbox_wasm_track_writes(wasm_rt_memory_t* memory) {
  return sandbox_wasm_track_writes_with(memory, sandbox_wasm_default_tracking_mode());
}

void sandbox_wasm_untrack_writes(wasm_rt_memory_t* memory) {
  Tracker* t = find(memory);
  if (t == NULL) return;
  release(t, memory);
}

sandbox_wasm_tracking_mode sandbox_wasm_tracking_mode_of(const wasm_rt_memory_t* memory) {
  const Tracker* t = find(memory);
  return t == NULL ? SANDBOX_WASM_TRACK_NONE : (sandbox_wasm_tracking_mode)t->mode;
}

int sandbox_wasm_is_tracked(const wasm_rt_memory_t* memory) { return find(memory) != NULL; }

int64_t sandbox_wasm_take_dirty_blocks(wasm_rt_memory_t* memory, uint32_t* out, uint16_t* blocks) {
  Tracker* t = find(memory);
  if (t == NULL) return -1;
  if (t->mode == SANDBOX_WASM_TRACK_UFFD) {
    const int64_t n =
        sandbox_uffd_collect_hot(memory->data, memory->size, &t->hot, out, blocks, NULL);
    if (n < 0) sandbox_wasm_untrack_writes(memory);
    return n;
  }
  int64_t n = 0;
  for (uint32_t p = 0; p < memory->pages; p++) {
    if (is_dirty(t, p)) {
      if (blocks != NULL) blocks[n] = UINT16_MAX;
      out[n++] = p;
    }
  }
  if (n > 0) {
    if (memory->size != 0 && mprotect(memory->data, memory->size, PROT_READ) != 0) {
      sandbox_wasm_untrack_writes(memory);
      return -1;
    }
    for (int64_t i = 0; i < n; i++) clear_dirty(t, out[i]);
  }
  return n;
}

int64_t sandbox_wasm_seed_hot_pages(wasm_rt_memory_t* memory, const uint32_t* pages, size_t n) {
  Tracker* t = find(memory);
  if (t == NULL || t->mode != SANDBOX_WASM_TRACK_UFFD || t->hot.capacity == 0) return 0;
  const int64_t seeded = sandbox_uffd_hot_seed(memory->data, memory->size, &t->hot, pages, n);
  /* Armed again, every page protected; a failure to arm leaves the memory untracked. */
  if (seeded < 0) (void)sandbox_wasm_track_writes_with(memory, SANDBOX_WASM_TRACK_UFFD);
  return seeded;
}

int sandbox_wasm_tracking_grew(wasm_rt_memory_t* memory, uint32_t old_pages, uint32_t new_pages) {
  Tracker* t = find(memory);
  if (t == NULL || new_pages <= old_pages) return 0;
  const size_t start = (size_t)old_pages * SANDBOX_WASM_PAGE_SIZE;
  const size_t length = (size_t)(new_pages - old_pages) * SANDBOX_WASM_PAGE_SIZE;
  if (t->mode == SANDBOX_WASM_TRACK_UFFD) return sandbox_uffd_protect(memory->data + start, length);
  if (mprotect(memory->data + start, length, PROT_READ) != 0) return -1;
  for (uint32_t p = old_pages; p < new_pages; p++) clear_dirty(t, p);
  return 0;
}

int sandbox_wasm_tracking_fault(uintptr_t addr) {
  const size_t used = slots_used();
  for (size_t i = 0; i < used; i++) {
    Tracker* t = &g_trackers[i];
    wasm_rt_memory_t* memory = __atomic_load_n(&t->memory, __ATOMIC_ACQUIRE);
    if (memory == NULL || (uintptr_t)memory == 1 || t->mode != SANDBOX_WASM_TRACK_MPROTECT) {
      continue;
    }
    /* Other threads track their own memories and may untrack them meanwhile: read the base
     * atomically, and look at a memory's size only when the fault is inside its reservation
     * (then it is this thread's memory; found by ThreadSanitizer). */
    uint8_t* base = __atomic_load_n(&t->base, __ATOMIC_ACQUIRE);
    if (base == NULL || addr < (uintptr_t)base) continue;
    const uintptr_t offset = addr - (uintptr_t)base;
    if (offset >= SANDBOX_WASM_RESERVATION || offset >= memory->size) continue;
    const uint32_t page = (uint32_t)(offset / SANDBOX_WASM_PAGE_SIZE);
    if (is_dirty(t, page)) return 0; /* already writable: not a tracking fault */
    if (mprotect(base + (size_t)page * SANDBOX_WASM_PAGE_SIZE, SANDBOX_WASM_PAGE_SIZE,
                 PROT_READ | PROT_WRITE) != 0) {
      return 0;
    }
    void (*hook)(int) = sandbox_wasm_race_hook;
    if (hook != NULL) hook(SANDBOX_WASM_RACE_TRACKING_FAULT);
    set_dirty(t, page);
    return 1;
  }
  return 0;
}
