// Chunk compression. The server compresses each chunk (a delta page, or 1 MiB of memory) before
// storing it and records the codec name in the snapshot record, so a reader knows how to decode
// every chunk of that snapshot (records without a codec are raw, as upstream stores them).
//
// zstd level -1 is the default. What a snapshot compresses is mostly one 64 KiB page of a delta
// (its XOR with the engine image: a quarter of its 4 KiB blocks non-zero, the rest zero). On
// such pages dumped from Ruby and Python steps (2-core machine) level -1 takes 7-10 us a page
// against 13-20 us for level 1, for 5-8% more bytes; level 2 and 3 are in between and barely
// smaller. For whole 1 MiB chunks of memory (bench/snapshot, synthetic heap-like data) level 1
// ran ~750 MB/s at ratio 10.0, level 3 ~660 MB/s at 10.1, level 6 ~140 MB/s at 10.7;
// decompression ~1.4 GB/s.
//
// Thread-safety: a ChunkCodec owns zstd contexts and must be used by one thread at a time (one
// per InterpreterServer); the free functions are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace sandbox {

enum class Codec { kRaw, kZstd };

inline constexpr int kDefaultZstdLevel = -1;

// The smallest zstd window log a decoder accepts (ZSTD_WINDOWLOG_ABSOLUTEMIN, 1 KiB).
inline constexpr int kMinZstdWindowLog = 10;

// The largest window (as a log2) a stored zstd frame may declare when it must decode to
// `expected_size` bytes: the size rounded up to a power of two, at least 1 KiB (20, 1 MiB, for
// a chunk). A frame written by encode() never needs more; a hostile row declaring a larger
// window (zstd would allocate it, up to 128 MiB by default) is refused before any allocation.
int zstd_window_log_max(std::size_t expected_size);

// "raw" / "zstd".
std::string_view codec_name(Codec codec);
// The codec named `name`, or nullopt for an unknown name.
[[nodiscard]] std::optional<Codec> parse_codec(std::string_view name);

class ChunkCodec {
 public:
  explicit ChunkCodec(Codec codec = Codec::kZstd, int level = kDefaultZstdLevel);
  ~ChunkCodec();
  ChunkCodec(ChunkCodec&&) noexcept;
  ChunkCodec& operator=(ChunkCodec&&) noexcept;

  Codec codec() const { return codec_; }

  // Encodes `raw` with this codec. Throws std::runtime_error only if zstd itself fails
  // (allocation).
  std::vector<std::uint8_t> encode(std::span<const std::uint8_t> raw);
  // encode(), appended to `out` (one zstd frame per call: a chunk may be several frames).
  void encode_append(std::span<const std::uint8_t> raw, std::vector<std::uint8_t>& out);

  // Decodes `stored`, written with `codec` (which may differ from this codec's own): for zstd
  // one frame or several one after another, whose contents together are the chunk. Requires
  // the result to be exactly `expected_size` bytes. Throws SnapshotError for data that
  // does not decode, has another size or declares a window over zstd_window_log_max().
  std::vector<std::uint8_t> decode(Codec codec, std::span<const std::uint8_t> stored,
                                   std::size_t expected_size);
  // Decodes into `out`, which must be exactly the expected size; same checks as decode(). Lets
  // a caller reuse one buffer for many chunks (fresh memory costs a page fault per 4 KiB).
  void decode_into(Codec codec, std::span<const std::uint8_t> stored, std::span<std::uint8_t> out);

 private:
  struct Contexts;
  Codec codec_;
  int level_;
  std::unique_ptr<Contexts> contexts_;
};

// One-shot forms (a fresh context per call).
std::vector<std::uint8_t> encode_chunk(Codec codec, std::span<const std::uint8_t> raw,
                                       int level = kDefaultZstdLevel);
std::vector<std::uint8_t> decode_chunk(Codec codec, std::span<const std::uint8_t> stored,
                                       std::size_t expected_size);

}  // namespace sandbox
