/* Asynchronous userfaultfd write-protection, the kernel's own page-level dirty tracking (Linux
 * 6.7+; docs/snapshot-format.md, "Change detection"). A registered range is write-protected
 * page by page; the first write to a protected 4 KiB page (by guest code, host code or a system
 * call such as read(2) or getrandom(2) writing into it) is resolved inside the kernel, which
 * only clears the page's protection bit: no signal and no exit to user space. Collecting
 * (ioctl PAGEMAP_SCAN on /proc/self/pagemap with PM_SCAN_WP_MATCHING) lists the pages whose
 * bit is clear and protects them again in the same page-table walk.
 *
 * Only the primitives live here; write_tracking.c decides which memories use them. One
 * userfaultfd (opened with UFFD_USER_MODE_ONLY, which unprivileged processes may use even when
 * vm.unprivileged_userfaultfd is 0) serves the whole process; it never delivers events, because
 * every fault on it is resolved asynchronously.
 *
 * Thread-safety: every function may be called from any thread; the ranges passed in must not
 * be unmapped concurrently. None is async-signal-safe. */
#ifndef SANDBOX_WASM_UFFD_TRACKING_H_
#define SANDBOX_WASM_UFFD_TRACKING_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the kernel offers asynchronous write-protection and PAGEMAP_SCAN (probed once per
 * process on a scratch mapping: a written page must be reported, an unwritten one must not);
 * 0 otherwise. */
int sandbox_uffd_available(void);

/* In a child just forked (single-threaded), before it loses the right to open files: forgets
 * the parent's descriptors (they act on the parent's memory), opens the child's own, and
 * stores them in fds[0..1]. Returns how many it stored (0 when tracking is unavailable). */
int sandbox_uffd_open_in_child(int* fds);

/* Registers [base, base + reserved) for write-protection and protects [base, base + size).
 * Both must be multiples of 4 KiB. Returns 0, or -1 when the kernel refuses this mapping (the
 * range is then left unregistered). */
int sandbox_uffd_arm(uint8_t* base, size_t reserved, size_t size);

/* Protects [base, base + length) again (a registered range; e.g. pages added by growth).
 * Returns 0 or -1. */
int sandbox_uffd_protect(uint8_t* base, size_t length);

/* Lists the 64 KiB pages of [base, base + size) holding a 4 KiB page written since it was
 * last protected, ascending, into `out` (room for size / 64 KiB entries), protects those pages
 * again, and returns their count; `blocks` (may be NULL; room as `out`) receives for each listed
 * page the mask of its written 4 KiB pages (bit b: bytes [b * 4 KiB, (b + 1) * 4 KiB) of the
 * 64 KiB page), and `*written_4k` (may be NULL) their number in all. Returns -1 when the scan
 * fails or finds part of the range not registered for asynchronous write-protection (e.g.
 * something mapped over it): writes may then have been missed. */
int64_t sandbox_uffd_collect(uint8_t* base, size_t size, uint32_t* out, uint16_t* blocks,
                             uint64_t* written_4k);

/* Hot pages (docs/snapshot-format.md#hot-pages): the 4 KiB pages a collection found written
 * and left writable, so a page written step after step costs no fault. Each keeps the hash of
 * its bytes at the last collection and how many collections in a row found them unchanged.
 * Ascending by page. */
typedef struct sandbox_uffd_hot_page {
  uint64_t hash;
  uint32_t page; /* 4 KiB page index from the start of the range */
  uint32_t quiet;
} sandbox_uffd_hot_page;

typedef struct sandbox_uffd_hot {
  sandbox_uffd_hot_page* pages; /* `count` entries in use, room for `capacity` */
  sandbox_uffd_hot_page* spare; /* room for `capacity`: the next collection's list */
  uint32_t count;
  uint32_t capacity;      /* 0: every written page is protected again (no hot pages) */
  uint32_t collections;   /* collections since sandbox_uffd_hot_init */
  uint64_t protect_calls; /* UFFDIO_WRITEPROTECT calls the collections made */
} sandbox_uffd_hot;

/* Collections in a row that find a hot page unchanged before it may be protected again. */
#define SANDBOX_UFFD_HOT_QUIET_COLLECTIONS 4

/* Quiet hot pages are protected again together, on every SANDBOX_UFFD_HOT_PROTECT_PERIOD-th
 * collection (a protection round), and until then stay hot. Each protecting call makes the
 * kernel flush the page translations of every other CPU running the process, an
 * inter-processor interrupt the caller waits for (docs/snapshot-format.md#hot-pages). */
#define SANDBOX_UFFD_HOT_PROTECT_PERIOD 32

/* Pages to protect with one call may lie up to this many 4 KiB pages apart (256 KiB): the
 * pages between are protected already, and protecting them again costs the kernel a walk of
 * their page table entries, far less than a second call. */
#define SANDBOX_UFFD_PROTECT_MERGE_GAP 64

/* Allocates room for `capacity` hot pages (0: none); 0, or -1 when out of memory (then
 * `hot` has none). `sandbox_uffd_hot_free` releases it; an empty struct needs no freeing. */
int sandbox_uffd_hot_init(sandbox_uffd_hot* hot, uint32_t capacity);
void sandbox_uffd_hot_free(sandbox_uffd_hot* hot);

/* sandbox_uffd_collect with hot pages: a written page that was protected is reported and kept
 * writable as a hot page while there is room (else protected again); a hot page is reported
 * only when its bytes changed since the last collection (keyed 64-bit hash), and protected
 * again at the first protection round (SANDBOX_UFFD_HOT_PROTECT_PERIOD) after
 * SANDBOX_UFFD_HOT_QUIET_COLLECTIONS collections without a change. Pages protected together
 * take one call per run of pages at most SANDBOX_UFFD_PROTECT_MERGE_GAP apart that no hot page
 * interrupts. So the report is
 * every page written for the first time since it was protected, and every hot page whose
 * bytes changed: a hot page rewritten with the same bytes is not reported. `*written_4k`
 * counts the reported 4 KiB pages. With `hot` NULL or of capacity 0 this is
 * sandbox_uffd_collect. Returns -1 as sandbox_uffd_collect does (the hot set is then empty). */
int64_t sandbox_uffd_collect_hot(uint8_t* base, size_t size, sandbox_uffd_hot* hot, uint32_t* out,
                                 uint16_t* blocks, uint64_t* written_4k);

/* Makes the 4 KiB pages `pages` (ascending, below size / 4 KiB) of a range armed a moment ago
 * hot, as if a collection had just found them written: each is unprotected and its hash taken
 * from its bytes now, while there is room. For a restore, whose written pages the next steps
 * are likely to write again. Returns how many became hot, or -1 (`hot` not empty, a page out of
 * order, or unprotecting failed: the caller then re-arms, which protects everything). */
int64_t sandbox_uffd_hot_seed(uint8_t* base, size_t size, sandbox_uffd_hot* hot,
                              const uint32_t* pages, size_t n);

/* Unregisters [base, base + reserved) (clearing every protection bit). */
void sandbox_uffd_disarm(uint8_t* base, size_t reserved);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASM_UFFD_TRACKING_H_ */
