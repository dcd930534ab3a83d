// LiveOutput: how `sandbox run` and `sandbox repl` print a guest's output as it arrives
// (docs/protocol.md#streaming-output). Its callbacks go into the client's on_stdout_text /
// on_stderr_text and write each piece at once; rest() then gives what print_result still has
// to print (the results and the error, and the logs of a stream that streamed nothing, say from
// a server that does not stream), so the final text matches the non-streaming output.
#pragma once

#include <functional>
#include <ostream>
#include <string_view>

#include <sandbox/client.h>

namespace sandbox::cli {

class LiveOutput {
 public:
  LiveOutput(std::ostream& out, std::ostream& err) : out_(out), err_(err) {}

  std::function<void(std::string_view)> on_stdout();
  std::function<void(std::string_view)> on_stderr();
  // Ends a streamed line left open (as print_result ends every line), and returns `result`
  // without the logs already printed.
  ExecutionResult rest(const ExecutionResult& result);

 private:
  std::ostream& out_;
  std::ostream& err_;
  bool streamed_out_ = false;
  bool streamed_err_ = false;
  bool out_open_line_ = false;
  bool err_open_line_ = false;
};

}  // namespace sandbox::cli
