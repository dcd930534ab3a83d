/* sandbox_hash64: XXH3-64 (xxHash, Debian's libxxhash-dev, used header-only) of `n` bytes with
 * a 64-bit seed, on the widest vector unit the CPU offers: AVX2 where it has it, SSE2 (every
 * x86-64) otherwise, chosen at the first call. XXH3 gives the same hash on every path, so the
 * choice changes only the speed: 4 KiB blocks in cache hash at about 36 GB/s with AVX2 against
 * 13 GB/s with SSE2 on the AMD EPYC of bench/results.md. The snapshot's page hashes
 * (src/snapshot/page_hash.h) and the write tracking's hot pages (src/wasm/uffd_tracking.c) hash
 * every 4 KiB page a step writes with it.
 *
 * A C header, for both of those. Thread-safe. */
#ifndef SANDBOX_BASE_FAST_HASH_H
#define SANDBOX_BASE_FAST_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t sandbox_hash64(const void* bytes, size_t n, uint64_t seed);

/* The two paths, for tests: the portable one, and the AVX2 one, which may be called only when
 * sandbox_hash64_has_avx2() is true. */
uint64_t sandbox_hash64_portable(const void* bytes, size_t n, uint64_t seed);
uint64_t sandbox_hash64_avx2(const void* bytes, size_t n, uint64_t seed);
int sandbox_hash64_has_avx2(void);

#ifdef __cplusplus
}
#endif

#endif
