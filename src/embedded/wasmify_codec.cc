// The protobuf subset of the wasmify ABI (docs/wasmify-abi.md#encoding).
#include <sandbox/wasmify_codec.h>

namespace sandbox::wasmify {
namespace {

constexpr std::uint64_t kWireVarint = 0;
constexpr std::uint64_t kWireBytes = 2;

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(value));
}

void check_field_number(std::uint64_t number, std::size_t offset) {
  if (number == 0 || number > kMaxFieldNumber) {
    throw CodecError(CodecErrorKind::kInvalid, offset,
                     "Invalid protobuf: field number " + std::to_string(number) + " at byte " +
                         std::to_string(offset));
  }
}

// Reads one varint at `pos` (advanced past it). docs/wasmify-abi.md#encoding (P1, P5).
std::uint64_t get_varint(std::span<const std::uint8_t> in, std::size_t& pos) {
  const std::size_t start = pos;
  std::uint64_t value = 0;
  for (std::size_t i = 0;; ++i) {
    if (pos >= in.size()) {
      throw CodecError(CodecErrorKind::kTruncated, start,
                       "Truncated protobuf: varint at byte " + std::to_string(start));
    }
    const std::uint8_t byte = in[pos++];
    // The tenth byte holds bit 63 only: anything more is past 64 bits, and a continuation bit
    // there would make the varint longer than ten bytes.
    if (i == kMaxVarintBytes - 1 && byte > 1) {
      throw CodecError(CodecErrorKind::kInvalid, start,
                       "Invalid protobuf: varint over 64 bits at byte " + std::to_string(start));
    }
    value |= std::uint64_t{byte & 0x7fU} << (7 * i);
    if ((byte & 0x80) == 0) return value;
  }
}

}  // namespace

std::vector<std::uint8_t> encode_request(const std::vector<RequestField>& fields) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const RequestField& field = fields[i];
    check_field_number(field.number, i);
    const std::uint64_t key = std::uint64_t{field.number} << 3;
    if (const auto* integer = std::get_if<std::int64_t>(&field.value)) {
      if (*integer < 0) {
        throw CodecError(CodecErrorKind::kNegativeValue, i,
                         "Negative protobuf value " + std::to_string(*integer) + " in field " +
                             std::to_string(field.number));
      }
      put_varint(out, key | kWireVarint);
      put_varint(out, static_cast<std::uint64_t>(*integer));
    } else {
      const auto& text = std::get<std::string>(field.value);
      put_varint(out, key | kWireBytes);
      put_varint(out, text.size());
      out.insert(out.end(), text.begin(), text.end());
    }
  }
  return out;
}

Response decode_response(std::span<const std::uint8_t> bytes) {
  Response response;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::size_t at = pos;
    const std::uint64_t key = get_varint(bytes, pos);
    const std::uint64_t wire_type = key & 7;
    const std::uint64_t number = key >> 3;
    if (wire_type == 6 || wire_type == 7) {
      throw CodecError(CodecErrorKind::kInvalidWireType, at,
                       "Invalid protobuf wire type " + std::to_string(wire_type) + " at byte " +
                           std::to_string(at));
    }
    if (wire_type != kWireVarint && wire_type != kWireBytes) {
      throw CodecError(CodecErrorKind::kUnsupportedField, at,
                       "Unsupported protobuf field " + std::to_string(number) + " (wire type " +
                           std::to_string(wire_type) + ") at byte " + std::to_string(at));
    }
    check_field_number(number, at);
    const auto field = static_cast<std::uint32_t>(number);
    if (wire_type == kWireVarint) {
      response.fields.insert_or_assign(field, get_varint(bytes, pos));
      continue;
    }
    const std::size_t length_at = pos;
    const std::uint64_t length = get_varint(bytes, pos);
    if (length > bytes.size() - pos) {
      throw CodecError(CodecErrorKind::kTruncated, length_at,
                       "Truncated protobuf: field " + std::to_string(number) + " announces " +
                           std::to_string(length) + " bytes at byte " + std::to_string(length_at) +
                           ", " + std::to_string(bytes.size() - pos) + " remain");
    }
    const auto* data = reinterpret_cast<const char*>(bytes.data() + pos);
    response.fields.insert_or_assign(field, std::string(data, static_cast<std::size_t>(length)));
    pos += static_cast<std::size_t>(length);
  }
  return response;
}

std::optional<std::uint64_t> Response::integer(std::uint32_t number) const {
  const auto it = fields.find(number);
  if (it == fields.end()) return std::nullopt;
  if (const auto* v = std::get_if<std::uint64_t>(&it->second)) return *v;
  return std::nullopt;
}

std::optional<std::string_view> Response::bytes(std::uint32_t number) const {
  const auto it = fields.find(number);
  if (it == fields.end()) return std::nullopt;
  if (const auto* v = std::get_if<std::string>(&it->second)) return std::string_view(*v);
  return std::nullopt;
}

}  // namespace sandbox::wasmify
