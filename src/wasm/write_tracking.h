/* Write tracking of linear memories: which 64 KiB pages were written since the last time they
 * were collected. It lets a snapshot re-hash and store only what a step changed.
 *
 * Mechanism: while tracking is on, every page of the memory is read-only except the ones
 * already marked dirty. The first write to a clean page faults; the SIGSEGV handler (signals.c)
 * recognizes an address inside a tracked memory, marks the page dirty, makes it writable and
 * returns, so the write is retried and succeeds. This works for guest code and host code alike
 * (WASI imports and the embedder write guest memory too). Collecting the dirty set makes the
 * whole memory read-only again with one mprotect.
 *
 * Invariants:
 *  1. While a tracker is active, a page of [0, size) is writable iff its dirty byte is set.
 *  2. Pages added by memory growth start clean and read-only (a write to them is tracked).
 *  3. Tracker slots live in a static table and are never freed, so the signal handler can read
 *     any slot at any time; a slot being (re)filled is skipped because its range does not hold
 *     the faulting address.
 *
 * Thread-safety: a memory is used by one thread at a time (its instance's); the table itself is
 * safe to use from any thread and from the signal handler. */
#ifndef SANDBOX_WASM_WRITE_TRACKING_H_
#define SANDBOX_WASM_WRITE_TRACKING_H_

#include <stddef.h>
#include <stdint.h>

#include "wasm-rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts tracking `memory` (every current page clean). Returns 0 on success, -1 when the table
 * is full or the protection cannot be changed (the memory is then left fully writable). */
int sandbox_wasm_track_writes(wasm_rt_memory_t* memory);

/* Stops tracking and makes the whole memory writable again. No-op when not tracked. */
void sandbox_wasm_untrack_writes(wasm_rt_memory_t* memory);

int sandbox_wasm_is_tracked(const wasm_rt_memory_t* memory);

/* Writes the dirty page numbers (ascending) into `out` (room for memory->pages entries), marks
 * every page clean and read-only again, and returns how many were written; -1 when the memory
 * is not tracked or re-protecting failed (tracking is then stopped). */
int64_t sandbox_wasm_take_dirty_pages(wasm_rt_memory_t* memory, uint32_t* out);

/* Called by the grow path: protects the new pages [old_pages, new_pages) read-only when the
 * memory is tracked. Returns 0 on success or when not tracked, -1 on failure. */
int sandbox_wasm_tracking_grew(wasm_rt_memory_t* memory, uint32_t old_pages, uint32_t new_pages);

/* For the SIGSEGV handler: if `addr` is a write to a clean page of a tracked memory, marks the
 * page dirty, makes it writable and returns 1 (retry the access); otherwise 0. Async-signal
 * safe. */
int sandbox_wasm_tracking_fault(uintptr_t addr);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASM_WRITE_TRACKING_H_ */
