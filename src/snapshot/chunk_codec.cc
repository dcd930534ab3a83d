#include "snapshot/chunk_codec.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include <zstd.h>

#include "snapshot/snapshot_error.h"

namespace sandbox {

namespace {

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

}  // namespace

int zstd_window_log_max(std::size_t expected_size) {
  const std::size_t window =
      std::max<std::size_t>(expected_size, std::size_t{1} << kMinZstdWindowLog);
  return static_cast<int>(std::bit_width(window - 1));
}

struct ChunkCodec::Contexts {
  std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx;
  std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx;
  // Compression output, reused across calls: fresh memory costs a page fault per 4 KiB, which
  // dominates compressing a chunk when the buffer is allocated each time.
  std::vector<std::uint8_t> scratch;
};

std::string_view codec_name(Codec codec) {
  switch (codec) {
    case Codec::kRaw:
      return "raw";
    case Codec::kZstd:
      return "zstd";
  }
  return "raw";
}

std::optional<Codec> parse_codec(std::string_view name) {
  if (name == "raw") return Codec::kRaw;
  if (name == "zstd") return Codec::kZstd;
  return std::nullopt;
}

ChunkCodec::ChunkCodec(Codec codec, int level)
    : codec_(codec), level_(level), contexts_(std::make_unique<Contexts>()) {}
ChunkCodec::~ChunkCodec() = default;
ChunkCodec::ChunkCodec(ChunkCodec&&) noexcept = default;
ChunkCodec& ChunkCodec::operator=(ChunkCodec&&) noexcept = default;

std::vector<std::uint8_t> ChunkCodec::encode(std::span<const std::uint8_t> raw) {
  std::vector<std::uint8_t> out;
  encode_append(raw, out);
  return out;
}

void ChunkCodec::encode_append(std::span<const std::uint8_t> raw, std::vector<std::uint8_t>& out) {
  if (codec_ == Codec::kRaw) {
    out.insert(out.end(), raw.begin(), raw.end());
    return;
  }
  if (!contexts_->cctx) {
    contexts_->cctx.reset(ZSTD_createCCtx());
    if (!contexts_->cctx) throw std::runtime_error("ZSTD_createCCtx failed");
  }
  std::vector<std::uint8_t>& scratch = contexts_->scratch;
  const std::size_t bound = ZSTD_compressBound(raw.size());
  if (scratch.size() < bound) scratch.resize(bound);
  const std::size_t n = ZSTD_compressCCtx(contexts_->cctx.get(), scratch.data(), bound, raw.data(),
                                          raw.size(), level_);
  if (ZSTD_isError(n)) {
    throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  }
  out.insert(out.end(), scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(n));
}

std::vector<std::uint8_t> ChunkCodec::decode(Codec codec, std::span<const std::uint8_t> stored,
                                             std::size_t expected_size) {
  std::vector<std::uint8_t> out(expected_size);
  decode_into(codec, stored, out);
  return out;
}

void ChunkCodec::decode_into(Codec codec, std::span<const std::uint8_t> stored,
                             std::span<std::uint8_t> out) {
  const std::size_t expected_size = out.size();
  if (codec == Codec::kRaw) {
    if (stored.size() != expected_size) {
      throw SnapshotError("raw chunk holds " + std::to_string(stored.size()) + " bytes, expected " +
                          std::to_string(expected_size));
    }
    std::copy(stored.begin(), stored.end(), out.begin());
    return;
  }
  // The first frame may hold the whole chunk, or a part of it when the chunk is several frames
  // (src/snapshot/delta_frames.h); the loop below checks the total.
  const unsigned long long declared = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) throw SnapshotError("chunk is not a zstd frame");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > expected_size) {
    throw SnapshotError("zstd chunk declares " + std::to_string(declared) + " bytes, expected " +
                        std::to_string(expected_size));
  }
  if (!contexts_->dctx) {
    contexts_->dctx.reset(ZSTD_createDCtx());
    if (!contexts_->dctx) throw std::runtime_error("ZSTD_createDCtx failed");
  }
  // Decoding with a stream lets a frame that holds more than `out` be detected: the output
  // buffer fills while input remains.
  ZSTD_DCtx_reset(contexts_->dctx.get(), ZSTD_reset_session_only);
  // The stream decoder allocates the window a frame declares before reading any data (up to
  // 128 MiB by zstd's default): a stored frame may declare no more than the chunk it decodes to.
  const std::size_t rc_window = ZSTD_DCtx_setParameter(contexts_->dctx.get(), ZSTD_d_windowLogMax,
                                                       zstd_window_log_max(expected_size));
  if (ZSTD_isError(rc_window)) {
    throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(rc_window));
  }
  // Frames one after another decode into one output (the decoder starts the next frame where
  // one ends, each under the window limit); every call consumes input or fills output, so the
  // loop ends within the stored bytes plus the output size.
  ZSTD_inBuffer in{stored.data(), stored.size(), 0};
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  std::size_t rc = 0;
  do {
    const std::size_t in_before = in.pos;
    const std::size_t out_before = o.pos;
    rc = ZSTD_decompressStream(contexts_->dctx.get(), &o, &in);
    if (ZSTD_isError(rc)) {
      throw SnapshotError(std::string("zstd chunk does not decode: ") + ZSTD_getErrorName(rc));
    }
    if (in.pos == in_before && o.pos == out_before) break;  // no progress: truncated
  } while (o.pos < o.size ? in.pos < in.size : (rc != 0 && in.pos < in.size));
  if (rc != 0 || o.pos != expected_size || in.pos != in.size) {
    throw SnapshotError("zstd chunk decodes to a size other than the expected " +
                        std::to_string(expected_size) + " bytes");
  }
}

std::vector<std::uint8_t> encode_chunk(Codec codec, std::span<const std::uint8_t> raw, int level) {
  return ChunkCodec(codec, level).encode(raw);
}

std::vector<std::uint8_t> decode_chunk(Codec codec, std::span<const std::uint8_t> stored,
                                       std::size_t expected_size) {
  return ChunkCodec(codec).decode(codec, stored, expected_size);
}

}  // namespace sandbox
