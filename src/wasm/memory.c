/* Linear memories: 8 GiB PROT_NONE reservations (MAP_NORESERVE) whose used pages are made
 * read-write; freed memories are unmapped in full (wabt 1.0.32's runtime unmapped only `size`
 * bytes and leaked the rest of the address space) or handed back to a pool. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "wasm/data_segments.h"
#include "wasm/memory_image.h"
#include "wasm/runtime.h"
#include "wasm/thread_state.h"
#include "wasm/write_tracking.h"

/* A pooled reservation: pages [0, rw_pages) are read-write and zero, the rest PROT_NONE. */
typedef struct {
  void* data;
  uint32_t rw_pages;
} pooled_memory;

struct sandbox_wasm_pool {
  pthread_mutex_t mu;
  size_t max_cached;
  size_t count;
  pooled_memory* items;
};

/* Memories up to this size are zeroed with memset and stay mapped read-write in the pool (no
 * system call and no page fault when reused); larger ones are dropped with MADV_DONTNEED. */
#define POOL_MEMSET_LIMIT (1u << 20)

static uint64_t g_live;
static SANDBOX_WASM_TLS const sandbox_wasm_alloc_context* tl_alloc;

void sandbox_wasm_set_alloc_context(const sandbox_wasm_alloc_context* context) {
  tl_alloc = context;
}

static SANDBOX_WASM_TLS int tl_skip_data_segments;

void sandbox_wasm_set_skip_data_segments(int skip) { tl_skip_data_segments = skip != 0; }

int sandbox_wasm_skip_data_segments(void) { return tl_skip_data_segments; }

uint64_t sandbox_wasm_live_reservations(void) { return __atomic_load_n(&g_live, __ATOMIC_RELAXED); }

/* Reservations are aligned to 2 MiB and ask for transparent huge pages (THP is usually in
 * "madvise" mode): on virtual machines every 4 KiB first-touch fault is expensive, and a guest
 * image of tens of MiB costs 10-20x less to populate with 2 MiB pages. A huge page forms only
 * where a whole aligned 2 MiB range is read-write, i.e. below the memory's current size. */
#define HUGE_PAGE_SIZE ((size_t)2 << 20)

static void* reserve(void) {
  const size_t span = SANDBOX_WASM_RESERVATION + HUGE_PAGE_SIZE;
  uint8_t* raw = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  uint8_t* p = (uint8_t*)(((uintptr_t)raw + HUGE_PAGE_SIZE - 1) & ~(uintptr_t)(HUGE_PAGE_SIZE - 1));
  if (p > raw) munmap(raw, (size_t)(p - raw));
  const size_t tail = (size_t)(raw + span - (p + SANDBOX_WASM_RESERVATION));
  if (tail > 0) munmap(p + SANDBOX_WASM_RESERVATION, tail);
  /* Best effort: without THP support this fails and 4 KiB pages are used. */
  (void)madvise(p, (size_t)SANDBOX_WASM_MAX_PAGES * SANDBOX_WASM_PAGE_SIZE, MADV_HUGEPAGE);
  __atomic_add_fetch(&g_live, 1, __ATOMIC_RELAXED);
  return p;
}

static void unreserve(void* p) {
  munmap(p, SANDBOX_WASM_RESERVATION);
  __atomic_sub_fetch(&g_live, 1, __ATOMIC_RELAXED);
}

static int pool_take(sandbox_wasm_pool* pool, pooled_memory* out) {
  int found = 0;
  pthread_mutex_lock(&pool->mu);
  if (pool->count > 0) {
    *out = pool->items[--pool->count];
    found = 1;
  }
  pthread_mutex_unlock(&pool->mu);
  return found;
}

/* Zeroes the used pages (small memories stay read-write, large ones are dropped and
 * re-protected), then keeps the reservation if there is room. Everything beyond `pages` is
 * dropped and made PROT_NONE whatever the memory's bookkeeping says, so a grow cut short (or
 * any other stray protection change) never hands writable or non-zero pages beyond its size to
 * the next tenant; both calls are cheap where nothing is mapped. A range that maps an image
 * (memory_image.h; `image` bytes) is replaced by fresh anonymous memory instead: MADV_DONTNEED
 * would bring it back to the image, not to zero. */
static int pool_put(sandbox_wasm_pool* pool, void* p, uint32_t pages, size_t image) {
  size_t used = (size_t)pages * SANDBOX_WASM_PAGE_SIZE;
  pooled_memory item = {p, pages};
  uint8_t* rest = (uint8_t*)p + used;
  const size_t rest_bytes = (size_t)SANDBOX_WASM_RESERVATION - used;
  if (madvise(rest, rest_bytes, MADV_DONTNEED) != 0 || mprotect(rest, rest_bytes, PROT_NONE) != 0) {
    return 0;
  }
  if (image != 0) {
    if (mmap(p, used, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) ==
        MAP_FAILED) {
      return 0;
    }
    (void)madvise(p, used, MADV_HUGEPAGE); /* as reserve() asks */
    item.rw_pages = 0;
  } else if (used <= POOL_MEMSET_LIMIT) {
    memset(p, 0, used);
  } else {
    if (madvise(p, used, MADV_DONTNEED) != 0 || mprotect(p, used, PROT_NONE) != 0) return 0;
    item.rw_pages = 0;
  }
  int kept = 0;
  pthread_mutex_lock(&pool->mu);
  if (pool->count < pool->max_cached) {
    pool->items[pool->count++] = item;
    kept = 1;
  }
  pthread_mutex_unlock(&pool->mu);
  return kept;
}

sandbox_wasm_pool* sandbox_wasm_pool_create(size_t max_cached) {
  sandbox_wasm_pool* pool = calloc(1, sizeof *pool);
  if (pool == NULL) return NULL;
  pool->items = calloc(max_cached ? max_cached : 1, sizeof(pooled_memory));
  if (pool->items == NULL) {
    free(pool);
    return NULL;
  }
  pthread_mutex_init(&pool->mu, NULL);
  pool->max_cached = max_cached;
  return pool;
}

void sandbox_wasm_pool_destroy(sandbox_wasm_pool* pool) {
  if (pool == NULL) return;
  for (size_t i = 0; i < pool->count; i++) unreserve(pool->items[i].data);
  pthread_mutex_destroy(&pool->mu);
  free(pool->items);
  free(pool);
}

size_t sandbox_wasm_pool_cached(sandbox_wasm_pool* pool) {
  pthread_mutex_lock(&pool->mu);
  size_t n = pool->count;
  pthread_mutex_unlock(&pool->mu);
  return n;
}

void (*volatile sandbox_wasm_race_hook)(int point);

/* Called by Z_<mod>_instantiate inside a (host) frame, so failures trap instead of aborting.
 * Host code (mmap, the pool's lock): a fault here is never taken for the guest's. */
void wasm_rt_allocate_memory(wasm_rt_memory_t* memory, uint32_t initial_pages, uint32_t max_pages) {
  sandbox_wasm_host_enter();
  const sandbox_wasm_alloc_context* ctx = tl_alloc;
  memory->data = NULL;
  memory->pages = 0;
  memory->size = 0;
  memory->max_pages = 0;
  if (max_pages > SANDBOX_WASM_MAX_PAGES) max_pages = SANDBOX_WASM_MAX_PAGES;
  if (ctx != NULL && ctx->cap_pages != 0 && max_pages > ctx->cap_pages) max_pages = ctx->cap_pages;
  if (initial_pages > max_pages) {
    sandbox_wasm_trap_with_message(SANDBOX_TRAP_HOST_ERROR,
                                   "initial linear memory exceeds the memory limit");
  }
  pooled_memory pooled = {NULL, 0};
  if (ctx != NULL && ctx->pool != NULL) pool_take(ctx->pool, &pooled);
  void* p = pooled.data != NULL ? pooled.data : reserve();
  if (p == NULL) {
    sandbox_wasm_trap_with_message(SANDBOX_TRAP_HOST_ERROR,
                                   "cannot reserve address space for a linear memory");
  }
  /* Exactly [0, initial) read-write: a pooled memory may have more or fewer such pages. */
  size_t bytes = (size_t)initial_pages * SANDBOX_WASM_PAGE_SIZE;
  size_t rw = (size_t)pooled.rw_pages * SANDBOX_WASM_PAGE_SIZE;
  int failed = 0;
  if (bytes > rw) {
    failed = mprotect((uint8_t*)p + rw, bytes - rw, PROT_READ | PROT_WRITE) != 0;
  } else if (bytes < rw) {
    failed = mprotect((uint8_t*)p + bytes, rw - bytes, PROT_NONE) != 0;
  }
  if (failed) {
    unreserve(p);
    sandbox_wasm_trap_with_message(SANDBOX_TRAP_HOST_ERROR, "cannot commit linear memory");
  }
  memory->data = p;
  memory->pages = initial_pages;
  memory->max_pages = max_pages;
  memory->size = (uint32_t)bytes;
  sandbox_wasm_host_leave();
}

uint32_t sandbox_wasm_grow(wasm_rt_memory_t* memory, uint32_t delta) {
  uint32_t old = memory->pages;
  uint64_t pages = (uint64_t)old + delta;
  if (pages > memory->max_pages || pages > SANDBOX_WASM_MAX_PAGES) return UINT32_MAX;
  if (delta == 0) return old;
  if (mprotect(memory->data + (size_t)old * SANDBOX_WASM_PAGE_SIZE,
               (size_t)delta * SANDBOX_WASM_PAGE_SIZE, PROT_READ | PROT_WRITE) != 0) {
    return UINT32_MAX;
  }
  void (*hook)(int) = sandbox_wasm_race_hook;
  if (hook != NULL) hook(SANDBOX_WASM_RACE_GROW);
  if (sandbox_wasm_tracking_grew(memory, old, (uint32_t)pages) != 0) {
    mprotect(memory->data + (size_t)old * SANDBOX_WASM_PAGE_SIZE,
             (size_t)delta * SANDBOX_WASM_PAGE_SIZE, PROT_NONE);
    return UINT32_MAX;
  }
  memory->pages = (uint32_t)pages;
  memory->size = (uint32_t)(pages * SANDBOX_WASM_PAGE_SIZE);
  return old;
}

/* The guest's memory.grow runs as host code (runtime.h, invariant 1b): a deadline arriving
 * between the mprotect and the size update would leave writable pages beyond the size. */
uint32_t wasm_rt_grow_memory(wasm_rt_memory_t* memory, uint32_t delta) {
  sandbox_wasm_host_enter();
  uint32_t old = sandbox_wasm_grow(memory, delta);
  sandbox_wasm_host_leave();
  return old;
}

void wasm_rt_free_memory(wasm_rt_memory_t* memory) {
  if (memory->data == NULL) return;
  sandbox_wasm_untrack_writes(memory);
  const size_t image = sandbox_wasm_forget_image(memory->data);
  const sandbox_wasm_alloc_context* ctx = tl_alloc;
  if (ctx == NULL || ctx->pool == NULL ||
      !pool_put(ctx->pool, memory->data, memory->pages, image)) {
    unreserve(memory->data);
  }
  memory->data = NULL;
  memory->pages = 0;
  memory->size = 0;
}
