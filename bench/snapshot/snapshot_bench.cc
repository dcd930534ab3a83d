// Snapshot hot paths: hashing a 32 MiB memory image, planning chunks, and zstd per chunk.
// The image is synthetic (see make_image): a heap-like mix of pointers, small integers, text
// and zero runs. Run: build/default/bench/snapshot/snapshot_bench
#include <cstring>

#include <benchmark/benchmark.h>

#include "snapshot/chunk_codec.h"
#include "snapshot/chunks.h"
#include "snapshot/page_hash.h"

namespace sandbox {
namespace {

std::vector<std::uint8_t> make_image(std::size_t bytes) {
  std::vector<std::uint8_t> mem(bytes, 0);
  std::uint32_t x = 0x12345678;
  const auto next = [&] { return x = x * 1664525u + 1013904223u; };
  static constexpr char kText[] = "def handler(request):\n    return {'status': 200}\n";
  for (std::size_t page = 0; page < bytes / kSnapshotPageBytes; ++page) {
    if (page % 4 == 3) continue;  // a quarter of the pages stay zero
    std::uint8_t* p = mem.data() + page * kSnapshotPageBytes;
    for (std::size_t off = 0; off < kSnapshotPageBytes; off += 16) {
      switch (next() >> 29) {
        case 0:
        case 1: {  // a pointer-sized value into a 64 MiB heap, plus a small tag
          const std::uint32_t ptr = (next() >> 6) & ~7u;
          std::memcpy(p + off, &ptr, 4);
          p[off + 4] = static_cast<std::uint8_t>(next() >> 28);
          break;
        }
        case 2:
          std::memcpy(p + off, kText + (off % 32), 16);
          break;
        case 3:
          p[off] = static_cast<std::uint8_t>(next() >> 24);
          break;
        default:
          break;  // zero run
      }
    }
  }
  return mem;
}

const std::vector<std::uint8_t>& image() {
  static const auto kImage = make_image(32u << 20);
  return kImage;
}

void BM_HashMemory32MiB(benchmark::State& state) {
  const auto& mem = image();
  for (auto _ : state) benchmark::DoNotOptimize(hash_memory(mem));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * mem.size()));
}
BENCHMARK(BM_HashMemory32MiB)->Unit(benchmark::kMillisecond);

void BM_FirstSnapshotPlanAndExtract(benchmark::State& state) {
  const auto& mem = image();
  for (auto _ : state) {
    const PageHashes h = hash_memory(mem);
    const ChunkPlan plan = plan_chunks(diff_pages({}, h), h);
    for (const auto c : plan.upsert) benchmark::DoNotOptimize(extract_chunk(mem, c));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * mem.size()));
}
BENCHMARK(BM_FirstSnapshotPlanAndExtract)->Unit(benchmark::kMillisecond);

void BM_CompressChunk(benchmark::State& state) {
  const auto chunk = extract_chunk(image(), 3);
  ChunkCodec codec(Codec::kZstd, static_cast<int>(state.range(0)));
  std::size_t stored = 0;
  for (auto _ : state) {
    const auto out = codec.encode(chunk);
    stored = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * chunk.size()));
  state.counters["ratio"] = static_cast<double>(chunk.size()) / static_cast<double>(stored);
}
BENCHMARK(BM_CompressChunk)->Arg(-1)->Arg(1)->Arg(3)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_DecompressChunk(benchmark::State& state) {
  const auto chunk = extract_chunk(image(), 3);
  ChunkCodec codec(Codec::kZstd, kDefaultZstdLevel);
  const auto stored = codec.encode(chunk);
  for (auto _ : state) benchmark::DoNotOptimize(codec.decode(Codec::kZstd, stored, kChunkBytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * chunk.size()));
}
BENCHMARK(BM_DecompressChunk)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sandbox

BENCHMARK_MAIN();
