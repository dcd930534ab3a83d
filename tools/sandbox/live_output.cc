#include "live_output.h"

namespace sandbox::cli {

std::function<void(std::string_view)> LiveOutput::on_stdout() {
  return [this](std::string_view text) {
    if (text.empty()) return;
    streamed_out_ = true;
    out_ << text << std::flush;
    out_open_line_ = text.back() != '\n';
  };
}

std::function<void(std::string_view)> LiveOutput::on_stderr() {
  return [this](std::string_view text) {
    if (text.empty()) return;
    streamed_err_ = true;
    err_ << text << std::flush;
    err_open_line_ = text.back() != '\n';
  };
}

ExecutionResult LiveOutput::rest(const ExecutionResult& result) {
  ExecutionResult left = result;
  if (streamed_out_) {
    if (out_open_line_) out_ << "\n" << std::flush;
    left.outcome.logs.stdout_lines.clear();
  }
  if (streamed_err_) {
    if (err_open_line_) err_ << "\n" << std::flush;
    left.outcome.logs.stderr_lines.clear();
  }
  streamed_out_ = streamed_err_ = out_open_line_ = err_open_line_ = false;
  return left;
}

}  // namespace sandbox::cli
