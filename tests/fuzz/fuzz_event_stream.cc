// Fuzzes the reader of streamed execute answers (docs/protocol.md#streaming-output): the SSE
// parser and ExecuteStreamReader fed untrusted bytes, split at a point the input chooses. Any
// outcome but a crash, a hang or unbounded memory is fine; EventStreamError is the expected
// refusal.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "client/execute_stream_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t split = data[0] % size;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t seen = 0;
  sandbox::ExecuteStreamReader reader(
      [&](sandbox::OutputStream, std::string_view text) { seen += text.size(); });
  try {
    reader.feed(bytes.substr(0, split));
    reader.feed(bytes.substr(split));
    if (reader.has_result()) (void)reader.response();
  } catch (const sandbox::EventStreamError&) {
  }
  (void)seen;
  return 0;
}
