// The protobuf subset of the wasmify ABI (docs/wasmify-abi.md#encoding): how the host encodes
// the request of one call into a wasmify module and decodes its response.
//
// A message is a sequence of fields, each a varint key `field_number * 8 + wire_type` followed
// by its value: wire type 0 a varint (unsigned LEB128, at most 64 bits), wire type 2 a length
// varint and that many bytes. Nothing else of protobuf exists here: no signed or fixed-width
// integers, no groups, no nested messages, no schema. A request lists the API function's
// parameters in order (field number = 1-based position); field 1 of a response is the
// function's return value.
//
//   std::vector<std::uint8_t> request =
//       sandbox::wasmify::encode_request({{1, std::int64_t{handle}}, {2, std::string(code)}});
//   sandbox::wasmify::Response response = sandbox::wasmify::decode_response(bytes);
//   std::optional<std::string_view> value = response.bytes(1);
//
// Both functions are pure and thread-safe. Their failures are CodecErrors, whose kind and byte
// offset say exactly what was wrong (the table in docs/wasmify-abi.md#encoding, P5); the decoder
// reads only the span it is given, whatever the bytes hold, so any input from a guest is safe to
// decode.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sandbox::wasmify {

// The largest field number protobuf allows (29 bits); the subset refuses larger ones and 0.
inline constexpr std::uint32_t kMaxFieldNumber = (std::uint32_t{1} << 29) - 1;
// A varint has at most ten bytes (64 bits, seven a byte).
inline constexpr std::size_t kMaxVarintBytes = 10;

enum class CodecErrorKind : std::uint8_t {
  kTruncated,         // "Truncated protobuf": the input ends inside a key, a varint or a value
  kInvalid,           // "Invalid protobuf": a varint over 64 bits, a field number 0 or too big
  kInvalidWireType,   // "Invalid protobuf wire type": 6 or 7, which protobuf does not define
  kUnsupportedField,  // "Unsupported protobuf field": wire types 1, 3, 4, 5 (not in the subset)
  kNegativeValue,     // "Negative protobuf value": a request integer below zero (encoder only)
};

// Why a message could not be encoded or decoded. `offset()` is the byte offset of the key or
// varint at fault (decoder), or the index of the request field at fault (encoder).
class CodecError : public std::runtime_error {
 public:
  CodecError(CodecErrorKind kind, std::size_t offset, const std::string& message)
      : std::runtime_error(message), kind_(kind), offset_(offset) {}
  CodecErrorKind kind() const { return kind_; }
  std::size_t offset() const { return offset_; }

 private:
  CodecErrorKind kind_;
  std::size_t offset_;
};

// One request field: an integer (encoded as wire type 0; it must not be negative) or a string
// (wire type 2, its bytes as they are).
struct RequestField {
  std::uint32_t number = 0;
  std::variant<std::int64_t, std::string> value;
};

// Encodes `fields` in the order given. Throws CodecError kNegativeValue for a negative integer
// and kInvalid for a field number of 0 or above kMaxFieldNumber; nothing is returned then.
std::vector<std::uint8_t> encode_request(const std::vector<RequestField>& fields);

// A decoded response: each field number with its value, a varint as an unsigned 64-bit integer
// or a length-delimited value as its bytes (copied). A repeated field number keeps its last
// value.
struct Response {
  std::map<std::uint32_t, std::variant<std::uint64_t, std::string>> fields;

  // The varint of field `number`; nullopt when the field is absent or holds bytes.
  std::optional<std::uint64_t> integer(std::uint32_t number) const;
  // The bytes of field `number`, valid while this Response lives; nullopt when the field is
  // absent or holds a varint.
  std::optional<std::string_view> bytes(std::uint32_t number) const;
};

// Decodes a whole message. Each field is checked as it is read: its key varint, then its wire
// type (kInvalidWireType, kUnsupportedField), then its field number (kInvalid), then its value;
// the first fault throws CodecError and nothing is returned. An empty input is an empty
// response. The caller bounds the input's size (the host reads at most
// kWasmifyMaxResponseBytes, <sandbox/wasmify.h>).
[[nodiscard]] Response decode_response(std::span<const std::uint8_t> bytes);

}  // namespace sandbox::wasmify
