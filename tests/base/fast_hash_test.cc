// sandbox_hash64 (src/base/fast_hash.h): every path gives XXH3-64 as xxHash defines it, so the
// choice of path changes no hash (snapshots compare hashes taken across steps and threads).
#include "base/fast_hash.h"

#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace sandbox {
namespace {

// Inputs of the sizes the callers hash (4 KiB blocks, 128-byte lists of block hashes) and of
// every size around XXH3's internal boundaries, each with several seeds.
std::vector<std::size_t> sizes() {
  std::vector<std::size_t> out;
  for (std::size_t n = 0; n <= 300; ++n) out.push_back(n);
  for (const std::size_t n : {1023, 1024, 1025, 4095, 4096, 4097, 65'536, 100'003}) {
    out.push_back(n);
  }
  return out;
}

TEST(FastHash, EveryPathIsXxh3) {
  std::mt19937_64 rng(42);
  std::vector<std::uint8_t> bytes(100'003);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  const bool avx2 = sandbox_hash64_has_avx2() != 0;
  for (const std::size_t n : sizes()) {
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, rng()}) {
      const std::uint64_t want = XXH3_64bits_withSeed(bytes.data(), n, seed);
      EXPECT_EQ(sandbox_hash64(bytes.data(), n, seed), want) << n;
      EXPECT_EQ(sandbox_hash64_portable(bytes.data(), n, seed), want) << n;
      if (avx2) {
        EXPECT_EQ(sandbox_hash64_avx2(bytes.data(), n, seed), want) << n;
      }
    }
  }
  if (!avx2) GTEST_SKIP() << "this CPU has no AVX2: only the portable path was compared";
}

}  // namespace
}  // namespace sandbox
