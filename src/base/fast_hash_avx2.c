/* sandbox_hash64_avx2 (base/fast_hash.h): this file alone is compiled with -mavx2, so xxHash's
 * inline code below takes its AVX2 path. Everything it defines besides that one function is
 * static (XXH_INLINE_ALL), so no AVX2 code can stand in for a function other files share. */
#include "base/fast_hash.h"

#if defined(__x86_64__) && !defined(__AVX2__)
#error "fast_hash_avx2.c must be compiled with -mavx2 (src/base/CMakeLists.txt)"
#endif

#define XXH_INLINE_ALL /* header only: nothing to link */
#include <xxhash.h>

uint64_t sandbox_hash64_avx2(const void* bytes, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(bytes, n, seed);
}
