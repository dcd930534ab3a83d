#include "snapshot/snapshot_record.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "snapshot/chunks.h"
#include "snapshot/snapshot_error.h"

namespace sandbox {
namespace {

template <typename T>
T number_field(const boost::json::object& o, std::string_view name, T fallback) {
  const auto* v = o.if_contains(name);
  if (!v || v->is_null()) return fallback;
  const auto bad = [&] {
    return SnapshotError("snapshot record field " + std::string(name) +
                         " is not an integer in range");
  };
  if (v->is_double()) {
    // JSON writers may emit integral doubles (JavaScript numbers); accept exact integers only.
    const long double d = v->get_double();
    if (std::isnan(d) || std::trunc(d) != d ||
        d < static_cast<long double>(std::numeric_limits<T>::min()) ||
        d > static_cast<long double>(std::numeric_limits<T>::max())) {
      throw bad();
    }
    return static_cast<T>(d);
  }
  boost::system::error_code ec;
  const T out = v->to_number<T>(ec);
  if (ec) throw bad();
  return out;
}

std::uint64_t parse_handle(const boost::json::value& v) {
  if (v.is_string()) {
    const auto& s = v.get_string();
    const char* first = s.data();
    const char* last = s.data() + s.size();
    if (!s.empty() && s[0] == '-') {
      std::int64_t signed_value = 0;
      const auto [ptr, ec] = std::from_chars(first, last, signed_value);
      if (ec != std::errc() || ptr != last) throw SnapshotError("snapshot handle is malformed");
      return static_cast<std::uint64_t>(signed_value);
    }
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (s.empty() || ec != std::errc() || ptr != last) {
      throw SnapshotError("snapshot handle is malformed");
    }
    return value;
  }
  if (v.is_uint64()) return v.get_uint64();
  if (v.is_int64()) return static_cast<std::uint64_t>(v.get_int64());
  throw SnapshotError("snapshot handle is missing or not a decimal string");
}

}  // namespace

boost::json::object to_json(const SnapshotRecord& record) {
  boost::json::object o;
  o["build"] = record.build;
  o["memoryPages"] = record.memory_pages;
  o["pageCount"] = record.page_count;
  o["bytes"] = record.bytes;
  o["chunkCount"] = record.chunk_count;
  o["handle"] = std::to_string(record.handle);
  o["extra"] = record.extra;
  o["takenAt"] = record.taken_at;
  o["stale"] = record.stale;
  o["codec"] = codec_name(record.codec);
  if (record.base) o["base"] = *record.base;
  if (record.chunk_pages != kChunkPages) o["chunkPages"] = record.chunk_pages;
  if (record.encoded_bytes) o["encodedBytes"] = *record.encoded_bytes;
  return o;
}

SnapshotRecord parse_snapshot_record(const boost::json::value& value) {
  const auto* o = value.if_object();
  if (!o) throw SnapshotError("snapshot record is not an object");
  SnapshotRecord r;
  const auto* build = o->if_contains("build");
  if (!build || !build->is_string()) throw SnapshotError("snapshot record has no build");
  r.build = build->get_string();
  const auto* handle = o->if_contains("handle");
  if (!handle) throw SnapshotError("snapshot record has no handle");
  r.handle = parse_handle(*handle);
  r.memory_pages = number_field<std::uint32_t>(*o, "memoryPages", 0);
  r.page_count = number_field<std::uint32_t>(*o, "pageCount", 0);
  r.bytes = number_field<std::uint64_t>(*o, "bytes", 0);
  r.chunk_count = number_field<std::uint32_t>(*o, "chunkCount", 0);
  r.taken_at = number_field<std::int64_t>(*o, "takenAt", 0);
  if (const auto* extra = o->if_contains("extra"); extra && !extra->is_null()) {
    if (!extra->is_object()) throw SnapshotError("snapshot record extra is not an object");
    r.extra = extra->get_object();
  }
  if (const auto* stale = o->if_contains("stale"); stale && !stale->is_null()) {
    if (!stale->is_bool()) throw SnapshotError("snapshot record stale is not a boolean");
    r.stale = stale->get_bool();
  }
  if (const auto* codec = o->if_contains("codec"); codec && !codec->is_null()) {
    if (!codec->is_string()) throw SnapshotError("snapshot record codec is not a string");
    const auto parsed = parse_codec(codec->get_string());
    if (!parsed) {
      throw SnapshotError("snapshot record codec is unknown: " + std::string(codec->get_string()));
    }
    r.codec = *parsed;
  }
  if (const auto* base = o->if_contains("base"); base && !base->is_null()) {
    if (!base->is_string() || base->get_string().empty() ||
        base->get_string().size() > kMaxBaseFingerprintChars) {
      throw SnapshotError("snapshot record base is not an image fingerprint");
    }
    r.base = std::string(base->get_string());
  }
  r.chunk_pages = number_field<std::uint32_t>(*o, "chunkPages", kChunkPages);
  if (!valid_chunk_pages(r.chunk_pages)) {
    throw SnapshotError("snapshot record chunkPages is not a power of two from 1 to 16");
  }
  if (const auto* encoded = o->if_contains("encodedBytes"); encoded && !encoded->is_null()) {
    r.encoded_bytes = number_field<std::uint64_t>(*o, "encodedBytes", 0);
  }
  return r;
}

SnapshotInfo snapshot_info(const SnapshotRecord& record) {
  SnapshotInfo info;
  info.build = record.build;
  info.pages = record.page_count;
  info.bytes = record.bytes;
  info.stored_bytes = std::uint64_t{record.chunk_count} * record.chunk_pages * kSnapshotPageBytes;
  info.taken_at = record.taken_at;
  info.stale = record.stale;
  info.encoded_bytes = record.encoded_bytes;
  return info;
}

}  // namespace sandbox
