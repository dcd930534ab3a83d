/* Write tracking of linear memories: which 64 KiB pages were written since the last time they
 * were collected. It lets a snapshot re-hash and store only what a step changed.
 *
 * Two mechanisms, chosen per memory when tracking starts (docs/snapshot-format.md, "Change
 * detection"):
 *
 *  - SANDBOX_WASM_TRACK_UFFD (preferred, Linux 6.7+): asynchronous userfaultfd
 *    write-protection (uffd_tracking.h). The kernel notes the first write to each 4 KiB page
 *    without a signal (about 1 us instead of 10); collecting scans the page tables with
 *    PAGEMAP_SCAN and reports a 64 KiB page when one of its 4 KiB pages was written. Writes by
 *    system calls (read(2) or getrandom(2) into guest memory) are noted too.
 *  - SANDBOX_WASM_TRACK_MPROTECT (fallback): every page of the memory is read-only except the
 *    ones already marked dirty. The first write to a clean page faults; the SIGSEGV handler
 *    (signals.c) recognizes an address inside a tracked memory, marks the page dirty, makes it
 *    writable and returns, so the write is retried and succeeds. This works for guest code and
 *    host code alike (WASI imports and the embedder write guest memory too), but a system call
 *    writing into a clean page fails with EFAULT instead (src/wasi/host_state.cc, random_get).
 *    Collecting makes the whole memory read-only again with one mprotect.
 *
 * With uffd, a 4 KiB page found written stays writable for the next collections as a hot page
 * (docs/snapshot-format.md#hot-pages): a page written step after step then costs a hash of its
 * bytes per collection instead of a fault, and is reported only when its bytes changed. It is
 * protected again after SANDBOX_UFFD_HOT_QUIET_COLLECTIONS collections that found it unchanged,
 * at the next protection round (every SANDBOX_UFFD_HOT_PROTECT_PERIOD-th collection), together
 * with the other quiet pages.
 * At most sandbox_wasm_hot_page_limit() pages per memory are hot (SANDBOX_HOT_PAGES, else
 * SANDBOX_WASM_HOT_PAGES; 0 turns hot pages off).
 *
 * SANDBOX_WASM_TRACK_NONE ("hash") tracks nothing: snapshots then hash every page. The mode
 * used by sandbox_wasm_track_writes() is the process default: the environment variable
 * SANDBOX_WRITE_TRACKING (auto, uffd, mprotect or hash; read once), else auto (uffd where the
 * kernel offers it, mprotect otherwise, per memory: a mapping the kernel refuses to
 * write-protect asynchronously falls back to mprotect).
 *
 * Invariants (mprotect mode):
 *  1. While a tracker is active, a page of [0, size) is writable iff its dirty byte is set.
 *  2. Pages added by memory growth start clean and read-only (a write to them is tracked).
 *  3. Tracker slots live in a static table and are never freed, so the signal handler can read
 *     any slot at any time; a slot being (re)filled is skipped because its range does not hold
 *     the faulting address.
 * Invariants (uffd mode):
 *  4. The whole reservation is registered for write-protection; [0, size) is protected at
 *     start and after growth, and after each collection every page but the hot ones, so a page
 *     not reported was not written since the last collection, or is a hot page whose bytes are
 *     the same as then. Anything that maps over the memory (MAP_FIXED) drops the
 *     registration: the next collection then fails (-1, tracking stops) instead of missing
 *     writes; call sandbox_wasm_track_writes() again after such a remap to re-arm.
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

/* Hot 4 KiB pages per memory by default (2 MiB: hashing them all takes about 0.1 ms), and the
 * most SANDBOX_HOT_PAGES may ask for. */
#define SANDBOX_WASM_HOT_PAGES 512u
#define SANDBOX_WASM_MAX_HOT_PAGES 16384u

typedef enum sandbox_wasm_tracking_mode {
  SANDBOX_WASM_TRACK_AUTO = 0,     /* uffd where available, else mprotect */
  SANDBOX_WASM_TRACK_UFFD = 1,     /* asynchronous userfaultfd write-protection */
  SANDBOX_WASM_TRACK_MPROTECT = 2, /* read-only pages and a SIGSEGV per first write */
  SANDBOX_WASM_TRACK_NONE = 3,     /* no tracking: snapshots hash every page */
} sandbox_wasm_tracking_mode;

/* Starts tracking `memory` with the process default mode (every current page clean; when it is
 * already tracked, re-arms it: the dirty set is dropped and every page is protected again).
 * Returns 0 on success, -1 when the default is SANDBOX_WASM_TRACK_NONE, the table is full or
 * the protection cannot be changed (the memory is then left untracked and fully writable). */
int sandbox_wasm_track_writes(wasm_rt_memory_t* memory);

/* The same with an explicit mode. SANDBOX_WASM_TRACK_UFFD fails (-1) where the kernel lacks it
 * instead of falling back. */
int sandbox_wasm_track_writes_with(wasm_rt_memory_t* memory, sandbox_wasm_tracking_mode mode);

/* The mechanism tracking `memory` (SANDBOX_WASM_TRACK_UFFD or _MPROTECT), or
 * SANDBOX_WASM_TRACK_NONE when it is not tracked. */
sandbox_wasm_tracking_mode sandbox_wasm_tracking_mode_of(const wasm_rt_memory_t* memory);

/* The process default used by sandbox_wasm_track_writes(): SANDBOX_WRITE_TRACKING from the
 * environment on first use unless set here (benchmarks and tests compare the modes). */
sandbox_wasm_tracking_mode sandbox_wasm_default_tracking_mode(void);
void sandbox_wasm_set_default_tracking_mode(sandbox_wasm_tracking_mode mode);

/* The hot pages a memory armed from now on may keep (benchmarks and tests compare). */
uint32_t sandbox_wasm_hot_page_limit(void);
void sandbox_wasm_set_hot_page_limit(uint32_t pages);

/* Whether asynchronous userfaultfd write-protection works in this process. */
int sandbox_wasm_uffd_tracking_available(void);

/* Stops tracking and makes the whole memory writable again. No-op when not tracked. */
void sandbox_wasm_untrack_writes(wasm_rt_memory_t* memory);

int sandbox_wasm_is_tracked(const wasm_rt_memory_t* memory);

/* Writes the dirty page numbers (ascending) into `out` (room for memory->pages entries; with
 * uffd, a hot page counts only when its bytes changed) and, when
 * `blocks` is not NULL (room as `out`), for each dirty page the mask of its 4 KiB blocks that may
 * have been written (bit b: bytes [b * 4 KiB, (b + 1) * 4 KiB) of the page; a clear bit promises
 * the block was not written: userfaultfd tracking reports blocks, mprotect tracking knows only
 * pages and sets every bit); marks every page clean and protected again, and returns how many
 * were written; -1 when the memory is not tracked or collecting / re-protecting failed (tracking
 * is then stopped). */
int64_t sandbox_wasm_take_dirty_blocks(wasm_rt_memory_t* memory, uint32_t* out, uint16_t* blocks);

/* Right after sandbox_wasm_track_writes: makes the 4 KiB pages `pages` (ascending; page index
 * from the memory's start) hot pages, as a restore that wrote them does (uffd mode only;
 * docs/snapshot-format.md#hot-pages). Returns how many became hot (0 in other modes or without
 * room), or -1 when they could not be (the memory is then armed again, every page protected). */
int64_t sandbox_wasm_seed_hot_pages(wasm_rt_memory_t* memory, const uint32_t* pages, size_t n);

/* Called by the grow path: protects the new pages [old_pages, new_pages) when the memory is
 * tracked. Returns 0 on success or when not tracked, -1 on failure. */
int sandbox_wasm_tracking_grew(wasm_rt_memory_t* memory, uint32_t old_pages, uint32_t new_pages);

/* For the SIGSEGV handler: if `addr` is a write to a clean page of a tracked memory, marks the
 * page dirty, makes it writable and returns 1 (retry the access); otherwise 0. Async-signal
 * safe. */
int sandbox_wasm_tracking_fault(uintptr_t addr);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASM_WRITE_TRACKING_H_ */
