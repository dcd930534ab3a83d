// Fuzz target: the wasmify ABI's protobuf-subset decoder (<sandbox/wasmify_codec.h>,
// docs/wasmify-abi.md#encoding), which reads every response a wasmify module returns. The whole
// input is one response. Checked beyond "no crash": the decoder fails only with CodecError, and
// that error's offset is within the input (at most its end); a message that decodes has only field
// numbers in 1..kMaxFieldNumber and bytes no longer than the input; re-encoding what it decoded
// (fields in order, integers that fit the encoder's int64) decodes to the same fields.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include <sandbox/wasmify_codec.h>

#include "fuzz_assert.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer names the entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sandbox::wasmify;
  Response response;
  try {
    response = decode_response(std::span<const std::uint8_t>(data, size));
  } catch (const CodecError& e) {
    // The offset of the key or varint at fault: at most the input's end (a field whose key is
    // the last byte faults on a varint that would start there).
    FUZZ_CHECK(e.offset() <= size);
    FUZZ_CHECK(e.kind() != CodecErrorKind::kNegativeValue);
    return 0;
  }
  std::vector<RequestField> fields;
  for (const auto& [number, value] : response.fields) {
    FUZZ_CHECK(number >= 1 && number <= kMaxFieldNumber);
    RequestField& field = fields.emplace_back();
    field.number = number;
    if (const auto* text = std::get_if<std::string>(&value)) {
      FUZZ_CHECK(text->size() <= size);
      field.value.emplace<std::string>(*text);
    } else {
      const std::uint64_t integer = std::get<std::uint64_t>(value);
      if (integer > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fields.pop_back();
        continue;
      }
      field.value.emplace<std::int64_t>(static_cast<std::int64_t>(integer));
    }
  }
  const Response again = decode_response(encode_request(fields));
  FUZZ_CHECK(again.fields.size() == fields.size());
  for (const auto& field : fields) {
    const auto it = again.fields.find(field.number);
    FUZZ_CHECK(it != again.fields.end());
    FUZZ_CHECK(it->second == response.fields.at(field.number));
  }
  return 0;
}
