/* Copy-on-write memory images: a linear memory's contents kept once in a sealed memfd and mapped
 * MAP_PRIVATE | MAP_FIXED over the start of any number of reservations
 * (docs/guest-abi.md#copy-on-write-mapping). Mapping costs page-table work instead of a copy;
 * an instance's first write to a page copies just that 4 KiB page, and pages nobody wrote stay
 * shared by every instance (and by the page cache). MADV_DONTNEED on the mapped range drops the
 * private copies, which brings the range back to the image; past the image the reservation
 * stays anonymous memory, where the same call brings pages back to zero.
 *
 * The file is sealed (F_SEAL_WRITE, F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_SEAL) once written: no
 * one can change an image under the instances that map it, and a mapping never extends past the
 * file's end (which would raise SIGBUS). Pages of the image that are all zero are never written
 * to the file: they stay holes and cost no memory until read.
 *
 * Which memories have an image mapped is kept in a table beside the memories (wasm_rt_memory_t
 * has no room for it): the pool must not hand a reservation that still maps an image to the
 * next tenant, and a reset must know the range is the image.
 *
 * Write tracking (write_tracking.h) keeps working on a mapped memory: mprotect works on private
 * file mappings. Mapping and resetting require an untracked memory, because both change the
 * protection of the range.
 *
 * Thread-safety: a memory is used by one thread at a time; the table is safe from any thread
 * (not from signal handlers). */
#ifndef SANDBOX_WASM_MEMORY_IMAGE_H_
#define SANDBOX_WASM_MEMORY_IMAGE_H_

#include <stddef.h>
#include <stdint.h>

#include "wasm-rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a sealed memfd (close-on-exec) holding the `bytes` bytes at `data`; `bytes` must be a
 * multiple of the Wasm page size. Returns the descriptor, or -1 with errno set (memfd_create or
 * sealing unavailable, out of memory). */
int sandbox_wasm_image_create(const uint8_t* data, size_t bytes);

/* Maps the first `bytes` bytes of image `fd` copy-on-write over [0, bytes) of `memory`, which
 * must not be tracked, must hold at least `bytes` bytes, and may have no image mapped yet.
 * Returns 0 on success. Returns -1 when it failed but [0, bytes) is read-write anonymous memory
 * again (contents unspecified: the caller copies the image instead), and -2 when not even that
 * could be restored (the memory must be discarded). */
int sandbox_wasm_map_image(wasm_rt_memory_t* memory, int fd, size_t bytes);

/* The bytes of an image mapped into `memory` by sandbox_wasm_map_image, or 0. */
size_t sandbox_wasm_mapped_image_bytes(const wasm_rt_memory_t* memory);

/* Brings an untracked memory with an image mapped back to that image: [0, image) to the image's
 * bytes and [image, size) to zero (MADV_DONTNEED). With `image` (the image's bytes, e.g. a
 * read-only view of its file), only the 4 KiB pages written since the mapping are copied back
 * (found with PAGEMAP_SCAN, or in /proc/self/pagemap where the kernel lacks it: private copies
 * instead of file pages), so the pages stay mapped
 * for the next run; without it, or when pagemap cannot be read, every private page is dropped
 * and the range reads the image again. Returns 0, or -1 (nothing mapped, tracked, or madvise
 * failed; then discard the memory). */
int sandbox_wasm_reset_mapped_image(wasm_rt_memory_t* memory, const uint8_t* image);

/* In a child just forked (single-threaded), before it loses the right to open files: forgets
 * the parent's /proc/self/pagemap (it describes the parent's memory) and opens the child's.
 * Returns that descriptor (for the caller to keep open), or -1 when it cannot be opened. */
int sandbox_wasm_image_open_in_child(void);

/* How resets find the pages written since the mapping: with PAGEMAP_SCAN (1: the default, until
 * a kernel without it refuses the first scan) or by reading /proc/self/pagemap's entries (0).
 * For tests, which check that both find the same pages. */
void sandbox_wasm_image_use_pagemap_scan(int enabled);

/* The calls on /proc/self/pagemap that resets have made in this process (PAGEMAP_SCAN ioctls
 * and pagemap reads): a count for tests and benchmarks, the same on every host. */
uint64_t sandbox_wasm_image_pagemap_calls(void);

/* Called when the memory whose data starts at `data` is freed: forgets its image and returns
 * the bytes that were mapped (0 if none). */
size_t sandbox_wasm_forget_image(const uint8_t* data);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASM_MEMORY_IMAGE_H_ */
