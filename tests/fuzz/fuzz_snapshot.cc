// Fuzz target: what the snapshot code reads back from storage (src/snapshot/): the stored
// SnapshotRecord JSON (parse_snapshot_record), chunk bytes (ChunkCodec::decode / decode_into,
// decode_chunk), the chunk map of a restore (read_page) and the change detection of a save
// (hash_memory, diff_pages, plan_chunks, apply_chunk_plan).
//
// Input: the first byte picks the part, the rest is its data:
//   r  the rest as a stored record; a record that parses must survive to_json and back
//   z  u16 expected size, then zstd bytes       w  the same, raw codec
//   e  the rest encoded with zstd must decode to itself
//   p  a chunk map (count, then per chunk: index byte, length u16 of filler), then page numbers
//   h  two memories of up to 20 pages (page count, then per page: a byte, 0 = zero page), diffed
//   d  a delta record against a small image (docs/snapshot-format.md#delta-encoding): image
//      (memory as for h), memoryPages byte, flags (bit 0: a foreign fingerprint, bit 1: zstd,
//      bits 2-4: pages per chunk, 0 or 5 = 16, 1-4 = 1, 2, 4, 8, 6 = 0 and 7 = 3, both invalid),
//      then chunks (count, per chunk: index byte, length u16, that many bytes); every page is
//      read, and one past the memory: only SnapshotError may come out
//   D  an image and a memory (as for h): the memory stored as a delta in 16-page chunks must
//      read back exactly
//   P  the same with the chunks of deltas written now (kDeltaChunkPages)
//   F  an image and a memory (as for h), then steps (count, per step: writes (count, per write:
//      page, block and value bytes)): after every step each page's row from DeltaFrames (frames
//      reused across steps) must decode to the page's XOR with the image
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <boost/json/parse.hpp>

#include "fuzz_assert.h"
#include "fuzz_input.h"
#include "snapshot/chunk_codec.h"
#include "snapshot/chunks.h"
#include "snapshot/delta.h"
#include "snapshot/delta_frames.h"
#include "snapshot/page_hash.h"
#include "snapshot/snapshot_error.h"
#include "snapshot/snapshot_record.h"

namespace {

using namespace sandbox;

constexpr std::uint32_t kMaxPages = 20;  // more than one 16-page chunk

std::span<const std::uint8_t> bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

void record(std::string_view text) {
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(text, ec);
  if (ec) return;
  SnapshotRecord r;
  try {
    r = parse_snapshot_record(value);
  } catch (const SnapshotError&) {
    return;
  }
  FUZZ_CHECK(parse_snapshot_record(to_json(r)) == r);
  (void)snapshot_info(r);
}

void decode(Codec codec, fuzz::FuzzInput& in) {
  const std::size_t expected = (std::size_t{in.u8()} | std::size_t{in.u8()} << 8) * 16;
  const auto stored = bytes(in.rest());
  static ChunkCodec reused;  // decode_into with one codec for many chunks, as a restore does
  std::vector<std::uint8_t> out(expected);
  bool ok_into = true;
  try {
    reused.decode_into(codec, stored, out);
  } catch (const SnapshotError&) {
    ok_into = false;
  }
  try {
    const auto decoded = decode_chunk(codec, stored, expected);
    FUZZ_CHECK(ok_into && decoded.size() == expected && decoded == out);
  } catch (const SnapshotError&) {
    FUZZ_CHECK(!ok_into);
  }
}

void round_trip(std::string_view data) {
  const auto raw = bytes(data);
  const auto stored = encode_chunk(Codec::kZstd, raw);
  const auto decoded = decode_chunk(Codec::kZstd, stored, raw.size());
  FUZZ_CHECK(std::equal(decoded.begin(), decoded.end(), raw.begin(), raw.end()));
}

void pages(fuzz::FuzzInput& in) {
  ChunkMap chunks;
  for (int n = in.u8() % 4; n > 0; --n) {
    const std::uint32_t index = in.u8() % 8;
    const std::size_t length = (std::size_t{in.u8()} | std::size_t{in.u8()} << 8) * 16;
    chunks[index] = std::vector<std::uint8_t>(length, static_cast<std::uint8_t>(index + 1));
  }
  while (!in.empty()) {
    const std::uint32_t page = in.u8() | (in.u8() & 0x80 ? in.u32() : 0);
    try {
      const auto view = read_page(chunks, page);
      if (view) FUZZ_CHECK(view->size() == kSnapshotPageBytes);
    } catch (const SnapshotError&) {
      const auto it = chunks.find(chunk_of_page(page));
      FUZZ_CHECK(it != chunks.end());  // only a stored but short chunk is an error
    }
  }
}

std::vector<std::uint8_t> memory_of(fuzz::FuzzInput& in) {
  const std::uint32_t count = in.u8() % (kMaxPages + 1);
  std::vector<std::uint8_t> memory(std::size_t{count} * kSnapshotPageBytes);
  for (std::uint32_t p = 0; p < count; ++p) {
    const std::uint8_t b = in.u8();
    if (b) memory[std::size_t{p} * kSnapshotPageBytes + b * 97] = b;
  }
  return memory;
}

void diff(fuzz::FuzzInput& in) {
  const auto before = memory_of(in);
  const auto after = memory_of(in);
  const PageHashes previous = hash_memory(before), current = hash_memory(after);
  const PageDiff d = diff_pages(previous, current);
  FUZZ_CHECK(std::is_sorted(d.changed.begin(), d.changed.end()));
  FUZZ_CHECK(std::is_sorted(d.removed.begin(), d.removed.end()));
  const ChunkPlan plan = plan_chunks(d, current);
  std::set<std::uint32_t> upsert(plan.upsert.begin(), plan.upsert.end());
  for (const auto c : plan.remove) FUZZ_CHECK(!upsert.contains(c));
  // The stored chunk set after the plan is exactly the chunks with a non-zero page now.
  std::set<std::uint32_t> stored;
  for (const auto& [page, hash] : previous) stored.insert(chunk_of_page(page));
  apply_chunk_plan(stored, plan);
  std::set<std::uint32_t> expected;
  for (const auto& [page, hash] : current) expected.insert(chunk_of_page(page));
  FUZZ_CHECK(stored == expected);
  for (const auto c : plan.upsert) FUZZ_CHECK(extract_chunk(after, c).size() == kChunkBytes);
}

// A SnapshotBase over `image` (which must outlive it).
SnapshotBase base_of(const std::vector<std::uint8_t>& image) {
  SnapshotBase base;
  base.fingerprint = "image";
  base.pages = static_cast<std::uint32_t>(image.size() / kSnapshotPageBytes);
  for (std::uint32_t p = 0; p < base.pages; ++p) {
    const std::uint8_t* bytes = image.data() + std::size_t{p} * kSnapshotPageBytes;
    const bool zero = std::all_of(bytes, bytes + kSnapshotPageBytes, [](auto b) { return b == 0; });
    base.page_bytes.push_back(zero ? nullptr : bytes);
  }
  base.page_hashes = hash_memory(image);
  return base;
}

void hostile_delta(fuzz::FuzzInput& in) {
  const auto image = memory_of(in);
  const SnapshotBase base = base_of(image);
  SnapshotRecord record;
  record.build = "b";
  record.memory_pages = in.u8();
  const std::uint8_t flags = in.u8();
  record.base = flags & 1 ? "foreign" : base.fingerprint;
  record.codec = flags & 2 ? Codec::kZstd : Codec::kRaw;
  constexpr std::uint32_t kChunkSizes[] = {16, 1, 2, 4, 8, 16, 0, 3};
  record.chunk_pages = kChunkSizes[(flags >> 2) & 7];
  ChunkMap chunks;
  for (int n = in.u8() % 4; n > 0; --n) {
    const std::uint32_t index = in.u8();
    const std::size_t length = std::size_t{in.u8()} | std::size_t{in.u8()} << 8;
    std::vector<std::uint8_t> data;
    for (std::size_t i = 0; i < length && !in.empty(); ++i) data.push_back(in.u8());
    chunks[index] = std::move(data);
  }
  try {
    SnapshotPageReader reader(record, chunks, &base);
    FUZZ_CHECK(!(flags & 1));                           // a foreign image is always refused
    FUZZ_CHECK(valid_chunk_pages(record.chunk_pages));  // so is a chunk size of 0 or 3
    for (std::uint32_t p = 0; p <= record.memory_pages; ++p) {
      try {
        const auto view = reader.page(p);
        FUZZ_CHECK(p < record.memory_pages);
        if (view) FUZZ_CHECK(view->size() == kSnapshotPageBytes);
      } catch (const SnapshotError&) {
      }
    }
  } catch (const SnapshotError&) {
  }
}

void delta_round_trip(fuzz::FuzzInput& in, std::uint32_t chunk_pages) {
  const auto image = memory_of(in);
  auto memory = memory_of(in);
  if (memory.size() < image.size()) memory.resize(image.size());  // memory never shrinks
  const SnapshotBase base = base_of(image);
  ChunkMap chunks;
  std::vector<std::uint8_t> chunk(std::size_t{chunk_pages} * kSnapshotPageBytes);
  const auto pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  for (std::uint32_t c = 0; c * chunk_pages < pages; ++c) {
    if (delta_chunk(memory, base, c, chunk, chunk_pages)) {
      chunks[c] = encode_chunk(Codec::kZstd, chunk);
    }
  }
  SnapshotRecord record;
  record.build = "b";
  record.memory_pages = pages;
  record.base = base.fingerprint;
  record.codec = Codec::kZstd;
  record.chunk_pages = chunk_pages;
  SnapshotPageReader reader(record, chunks, &base);
  BlockHashes blocks;
  for (std::uint32_t p = 0; p < pages; ++p) {
    // A step's hash (with the block hashes) is the page's hash.
    const auto bytes = std::span<const std::uint8_t>(memory)
                           .subspan(std::size_t{p} * kSnapshotPageBytes)
                           .first<kSnapshotPageBytes>();
    FUZZ_CHECK(hash_page(bytes, blocks) == hash_page(bytes));
    const auto view = reader.page(p);
    const auto want = std::span<const std::uint8_t>(memory).subspan(
        std::size_t{p} * kSnapshotPageBytes, kSnapshotPageBytes);
    if (view) {
      FUZZ_CHECK(std::equal(view->begin(), view->end(), want.begin()));
    } else {
      FUZZ_CHECK(std::all_of(want.begin(), want.end(), [](auto b) { return b == 0; }));
    }
  }
}

void delta_frames(fuzz::FuzzInput& in) {
  const auto image = memory_of(in);
  auto memory = memory_of(in);
  if (memory.size() < image.size()) memory.resize(image.size());
  const SnapshotBase base = base_of(image);
  const auto pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  if (pages == 0) return;
  DeltaFrames frames;
  static ChunkCodec codec;
  std::vector<std::uint8_t> out(kSnapshotPageBytes);
  BlockHashes blocks;
  for (int steps = in.u8() % 8; steps >= 0; --steps) {
    for (int writes = in.u8() % 8; writes > 0; --writes) {
      const std::uint32_t page = in.u8() % pages;
      const std::size_t block = in.u8() % kBlocksPerPage;
      const std::uint8_t value = in.u8();
      memory[std::size_t{page} * kSnapshotPageBytes + block * kHashBlockBytes + value] = value;
    }
    for (std::uint32_t p = 0; p < pages; ++p) {
      const auto bytes = std::span<const std::uint8_t>(memory)
                             .subspan(std::size_t{p} * kSnapshotPageBytes)
                             .first<kSnapshotPageBytes>();
      (void)hash_page(bytes, blocks);
      const auto row = frames.encode(p, blocks, bytes, base_page(base, p), codec);
      (void)delta_chunk(memory, base, p, out, kDeltaChunkPages);
      FUZZ_CHECK(decode_chunk(Codec::kZstd, row, kSnapshotPageBytes) == out);
    }
    frames.end_step();
    FUZZ_CHECK(frames.bytes() <= kMaxDeltaFrameBytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  switch (in.u8()) {
    case 'r':
      record(in.rest());
      break;
    case 'z':
      decode(Codec::kZstd, in);
      break;
    case 'w':
      decode(Codec::kRaw, in);
      break;
    case 'e':
      round_trip(in.rest());
      break;
    case 'p':
      pages(in);
      break;
    case 'h':
      diff(in);
      break;
    case 'd':
      hostile_delta(in);
      break;
    case 'D':
      delta_round_trip(in, kChunkPages);
      break;
    case 'F':
      delta_frames(in);
      break;
    case 'P':
      delta_round_trip(in, kDeltaChunkPages);
      break;
    default:
      break;
  }
  return 0;
}
