// The protobuf subset of the wasmify ABI (<sandbox/wasmify_codec.h>,
// docs/wasmify-abi.md#encoding), against byte strings computed by hand.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <sandbox/wasmify_codec.h>

namespace sandbox::wasmify {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }

Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The kind, offset and message prefix of the CodecError `f` throws.
template <class F>
void expect_codec_error(F f, CodecErrorKind kind, std::size_t offset, std::string_view prefix) {
  try {
    f();
    ADD_FAILURE() << "no CodecError";
  } catch (const CodecError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(e.offset(), offset) << e.what();
    EXPECT_TRUE(std::string_view(e.what()).starts_with(prefix)) << e.what();
  }
}

void expect_decode_error(const Bytes& in, CodecErrorKind kind, std::size_t offset,
                         std::string_view prefix) {
  expect_codec_error([&] { (void)decode_response(in); }, kind, offset, prefix);
}

TEST(WasmifyEncode, IntegerIsKeyThenLeb128) {
  // 150 = 0b1001'0110: low seven bits 0x16 with the continuation bit, then 1.
  EXPECT_EQ(encode_request({{1, std::int64_t{150}}}), (Bytes{0x08, 0x96, 0x01}));
  EXPECT_EQ(encode_request({{1, std::int64_t{0}}}), (Bytes{0x08, 0x00}));
  EXPECT_EQ(encode_request({{3, std::int64_t{127}}}), (Bytes{0x18, 0x7f}));
  EXPECT_EQ(encode_request({{1, std::int64_t{128}}}), (Bytes{0x08, 0x80, 0x01}));
  EXPECT_EQ(encode_request({{1, std::numeric_limits<std::int64_t>::max()}}),
            (Bytes{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}));
}

TEST(WasmifyEncode, StringIsKeyLengthBytes) {
  EXPECT_EQ(encode_request({{2, std::string("testing")}}),
            concat(Bytes{0x12, 0x07}, bytes_of("testing")));
  EXPECT_EQ(encode_request({{1, std::string()}}), (Bytes{0x0a, 0x00}));
  // 200 bytes: the length is a two-byte varint (0xc8 0x01).
  const std::string long_text(200, 'x');
  EXPECT_EQ(encode_request({{1, long_text}}), concat(Bytes{0x0a, 0xc8, 0x01}, bytes_of(long_text)));
  // Bytes go as they are, a NUL included.
  EXPECT_EQ(encode_request({{1, std::string("a\0b", 3)}}), (Bytes{0x0a, 0x03, 'a', 0x00, 'b'}));
}

TEST(WasmifyEncode, FieldsInOrderWithLargeFieldNumbers) {
  // A call eval(handle = 5, "/stdlib"): the handle first, then the source.
  EXPECT_EQ(encode_request({{1, std::int64_t{5}}, {2, std::string("/stdlib")}}),
            concat(Bytes{0x08, 0x05, 0x12, 0x07}, bytes_of("/stdlib")));
  // Field 16: key 128 needs two bytes.
  EXPECT_EQ(encode_request({{16, std::int64_t{1}}}), (Bytes{0x80, 0x01, 0x01}));
  // The largest field number: key (2^29 - 1) * 8 = 0xfffffff8.
  EXPECT_EQ(encode_request({{kMaxFieldNumber, std::int64_t{0}}}),
            (Bytes{0xf8, 0xff, 0xff, 0xff, 0x0f, 0x00}));
  EXPECT_TRUE(encode_request({}).empty());
}

TEST(WasmifyEncode, RefusesNegativeValuesAndBadFieldNumbers) {
  expect_codec_error([] { (void)encode_request({{1, std::string("ok")}, {2, std::int64_t{-1}}}); },
                     CodecErrorKind::kNegativeValue, 1, "Negative protobuf value -1 in field 2");
  expect_codec_error([] { (void)encode_request({{1, std::numeric_limits<std::int64_t>::min()}}); },
                     CodecErrorKind::kNegativeValue, 0, "Negative protobuf value");
  expect_codec_error([] { (void)encode_request({{0, std::int64_t{1}}}); }, CodecErrorKind::kInvalid,
                     0, "Invalid protobuf: field number 0");
  expect_codec_error([] { (void)encode_request({{kMaxFieldNumber + 1, std::int64_t{1}}}); },
                     CodecErrorKind::kInvalid, 0, "Invalid protobuf: field number 536870912");
}

TEST(WasmifyDecode, VarintsAndBytes) {
  const Response r =
      decode_response(concat(Bytes{0x08, 0x96, 0x01, 0x12, 0x07}, bytes_of("testing")));
  EXPECT_EQ(r.fields.size(), 2U);
  EXPECT_EQ(r.integer(1), 150U);
  EXPECT_EQ(r.bytes(2), "testing");
  // Asking for the other type, or a missing field, is nullopt.
  EXPECT_EQ(r.bytes(1), std::nullopt);
  EXPECT_EQ(r.integer(2), std::nullopt);
  EXPECT_EQ(r.integer(3), std::nullopt);
  EXPECT_TRUE(decode_response({}).fields.empty());
  // An empty string and a string holding a NUL.
  const Response s = decode_response(Bytes{0x0a, 0x00, 0x12, 0x02, 'a', 0x00});
  EXPECT_EQ(s.bytes(1), "");
  EXPECT_EQ(s.bytes(2), std::string_view("a\0", 2));
}

TEST(WasmifyDecode, FullUnsignedRange) {
  // Ten bytes: nine of 0x7f groups and bit 63.
  EXPECT_EQ(decode_response(Bytes{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
                .integer(1),
            std::numeric_limits<std::uint64_t>::max());
  // A non-canonical encoding (a trailing zero group) is still the value.
  EXPECT_EQ(decode_response(Bytes{0x08, 0x81, 0x00}).integer(1), 1U);
  // The largest field number is accepted.
  EXPECT_EQ(decode_response(Bytes{0xf8, 0xff, 0xff, 0xff, 0x0f, 0x2a}).integer(kMaxFieldNumber),
            42U);
}

TEST(WasmifyDecode, RepeatedFieldLastWins) {
  EXPECT_EQ(decode_response(Bytes{0x08, 0x01, 0x08, 0x02}).integer(1), 2U);
  // Even when the type changes.
  const Response r = decode_response(Bytes{0x08, 0x01, 0x0a, 0x01, 'x'});
  EXPECT_EQ(r.bytes(1), "x");
  EXPECT_EQ(r.integer(1), std::nullopt);
}

TEST(WasmifyDecode, Truncated) {
  expect_decode_error({0x80}, CodecErrorKind::kTruncated, 0,
                      "Truncated protobuf: varint at byte 0");
  expect_decode_error({0x08}, CodecErrorKind::kTruncated, 1,
                      "Truncated protobuf: varint at byte 1");
  expect_decode_error({0x08, 0x96}, CodecErrorKind::kTruncated, 1, "Truncated protobuf");
  expect_decode_error({0x12}, CodecErrorKind::kTruncated, 1, "Truncated protobuf");
  expect_decode_error({0x12, 0x05, 'a', 'b'}, CodecErrorKind::kTruncated, 1,
                      "Truncated protobuf: field 2 announces 5 bytes at byte 1, 2 remain");
  // A length near 2^64 must not wrap around.
  expect_decode_error({0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'a'},
                      CodecErrorKind::kTruncated, 1, "Truncated protobuf");
  // The offset is that of the field at fault, after a good one.
  expect_decode_error({0x08, 0x01, 0x10}, CodecErrorKind::kTruncated, 3, "Truncated protobuf");
}

TEST(WasmifyDecode, VarintOver64Bits) {
  // Bit 64 set in the tenth byte.
  expect_decode_error({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
                      CodecErrorKind::kInvalid, 1,
                      "Invalid protobuf: varint over 64 bits at byte 1");
  // Eleven bytes: the tenth still has its continuation bit.
  expect_decode_error({0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
                      CodecErrorKind::kInvalid, 1, "Invalid protobuf: varint over 64 bits");
  // In a key.
  expect_decode_error({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
                      CodecErrorKind::kInvalid, 0, "Invalid protobuf: varint over 64 bits");
}

TEST(WasmifyDecode, WireTypes) {
  // 1 (64-bit), 3 and 4 (groups), 5 (32-bit): protobuf's, not the subset's.
  expect_decode_error({0x09}, CodecErrorKind::kUnsupportedField, 0,
                      "Unsupported protobuf field 1 (wire type 1) at byte 0");
  expect_decode_error({0x13}, CodecErrorKind::kUnsupportedField, 0,
                      "Unsupported protobuf field 2 (wire type 3)");
  expect_decode_error({0x0c}, CodecErrorKind::kUnsupportedField, 0, "Unsupported protobuf field");
  expect_decode_error({0x08, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x00}, CodecErrorKind::kUnsupportedField,
                      2, "Unsupported protobuf field 1 (wire type 5) at byte 2");
  // 6 and 7 do not exist.
  expect_decode_error({0x0e}, CodecErrorKind::kInvalidWireType, 0,
                      "Invalid protobuf wire type 6 at byte 0");
  expect_decode_error({0x0f, 0x00}, CodecErrorKind::kInvalidWireType, 0,
                      "Invalid protobuf wire type 7");
}

TEST(WasmifyDecode, FieldNumbers) {
  expect_decode_error({0x00, 0x00}, CodecErrorKind::kInvalid, 0,
                      "Invalid protobuf: field number 0 at byte 0");
  expect_decode_error({0x02, 0x00}, CodecErrorKind::kInvalid, 0,
                      "Invalid protobuf: field number 0");
  // Key 2^32: field number 2^29, one past the largest.
  expect_decode_error({0x80, 0x80, 0x80, 0x80, 0x10, 0x00}, CodecErrorKind::kInvalid, 0,
                      "Invalid protobuf: field number 536870912");
}

TEST(WasmifyCodec, RoundTrip) {
  const std::vector<RequestField> fields = {
      {1, std::int64_t{7}}, {2, std::string("print('hi')")}, {3, std::int64_t{1} << 40}};
  const Response r = decode_response(encode_request(fields));
  EXPECT_EQ(r.integer(1), 7U);
  EXPECT_EQ(r.bytes(2), "print('hi')");
  EXPECT_EQ(r.integer(3), std::uint64_t{1} << 40);
}

}  // namespace
}  // namespace sandbox::wasmify
