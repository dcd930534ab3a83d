#include "wasi/output_capture.h"

#include "base/lines.h"
#include "base/utf8.h"

namespace sandbox::wasi {

namespace {

// The length of the incomplete UTF-8 sequence at the end of `s`: 1-3 bytes that start a
// multi-byte character (a lead byte and the continuation bytes so far) but do not finish it.
std::size_t incomplete_tail(std::string_view s) {
  const std::size_t n = s.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xc0) == 0x80) continue;  // a continuation byte: look further back
    std::size_t need = 0;
    if (c >= 0xc2 && c <= 0xdf)
      need = 2;
    else if (c >= 0xe0 && c <= 0xef)
      need = 3;
    else if (c >= 0xf0 && c <= 0xf4)
      need = 4;
    return need > back ? back : 0;
  }
  return 0;
}

}  // namespace

bool OutputCapture::append(OutputStream stream, std::string_view bytes) {
  std::string& tail = stream == OutputStream::kStdout ? stdout_tail_ : stderr_tail_;
  // The held-back tail is found in the last 3 bytes of tail + bytes, so the limit is checked
  // before anything is copied: a guest's 60 MiB write must not cost a 60 MiB host copy.
  const std::size_t held = bytes.size() >= 3 ? incomplete_tail(bytes.substr(bytes.size() - 3))
                                             : incomplete_tail(tail + std::string(bytes));
  const std::uint64_t complete_size = tail.size() + bytes.size() - held;
  // Decoding never shrinks text (an ill-formed byte becomes 3), so a piece whose raw size is
  // already over the limit is refused without decoding it.
  if (complete_size != 0 && total_bytes_ + complete_size > limit_bytes_) {
    total_bytes_ += complete_size;
    exceeded_ = true;
    return false;
  }
  std::string data = tail + std::string(bytes);
  const std::string_view complete = std::string_view(data).substr(0, data.size() - held);
  const std::string text = sanitize_utf8(complete);
  total_bytes_ += text.size();
  if (text.empty()) {
    tail = data.substr(data.size() - held);
    return true;
  }
  if (total_bytes_ > limit_bytes_ || chunks_ >= limit_chunks_) {
    exceeded_ = true;
    return false;
  }
  ++chunks_;
  (stream == OutputStream::kStdout ? stdout_ : stderr_) += text;
  tail = data.substr(data.size() - held);
  if (observer_) {
    // Called from inside a WASI import: nothing may propagate into guest code.
    try {
      observer_(stream, text);
    } catch (...) {
    }
  }
  return true;
}

Logs OutputCapture::logs() const {
  return Logs{sandbox::split_lines(stdout_ + sanitize_utf8(stdout_tail_)),
              sandbox::split_lines(stderr_ + sanitize_utf8(stderr_tail_))};
}

void OutputCapture::reset() {
  total_bytes_ = 0;
  chunks_ = 0;
  exceeded_ = false;
  stdout_.clear();
  stderr_.clear();
  stdout_tail_.clear();
  stderr_tail_.clear();
}

}  // namespace sandbox::wasi
