#include "wasi/output_capture.h"

#include "base/utf8.h"

namespace sandbox::wasi {

bool OutputCapture::append(OutputStream stream, std::string_view bytes) {
  const std::string text = sanitize_utf8(bytes);
  total_bytes_ += text.size();
  if (text.empty()) return true;
  if (total_bytes_ > limit_bytes_ || chunks_ >= limit_chunks_) {
    exceeded_ = true;
    return false;
  }
  ++chunks_;
  (stream == OutputStream::kStdout ? stdout_ : stderr_) += text;
  return true;
}

Logs OutputCapture::logs() const { return Logs{split_lines(stdout_), split_lines(stderr_)}; }

void OutputCapture::reset() {
  total_bytes_ = 0;
  chunks_ = 0;
  exceeded_ = false;
  stdout_.clear();
  stderr_.clear();
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

}  // namespace sandbox::wasi
