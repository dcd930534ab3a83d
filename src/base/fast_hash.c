#include "base/fast_hash.h"

#include <stdatomic.h>

#define XXH_INLINE_ALL /* header only: nothing to link */
#include <xxhash.h>

typedef uint64_t (*HashFunction)(const void*, size_t, uint64_t);

uint64_t sandbox_hash64_portable(const void* bytes, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(bytes, n, seed);
}

int sandbox_hash64_has_avx2(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
  return 0;
#endif
}

uint64_t sandbox_hash64(const void* bytes, size_t n, uint64_t seed) {
  /* Chosen at the first call, not in a constructor: another constructor may hash first. Two
   * threads that race here choose the same. */
  static _Atomic(HashFunction) chosen = NULL;
  HashFunction f = atomic_load_explicit(&chosen, memory_order_relaxed);
  if (f == NULL) {
    f = sandbox_hash64_has_avx2() ? sandbox_hash64_avx2 : sandbox_hash64_portable;
    atomic_store_explicit(&chosen, f, memory_order_relaxed);
  }
  return f(bytes, n, seed);
}
