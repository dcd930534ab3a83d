// `sandbox repl`: an interactive session in one sandbox. Each submission (see repl_input.h) runs
// in the binding's default code context (or the context given), so state is kept across lines
// and, since contexts are durable, across sandboxd restarts. Results and guest output are
// printed as `sandbox run` prints them; a failed request is reported and the session goes on.
//
//   >>> n = 40          prompt ">>> ", continuation "... "
//   >>> n + 2
//   42
//   >>> .exit           (or end of input, Ctrl-D)
#pragma once

#include <functional>
#include <istream>
#include <optional>
#include <ostream>
#include <string>

#include <sandbox/client.h>

namespace sandbox::cli {

struct ReplOptions {
  std::string binding;                 // the binding whose default context runs the code
  std::optional<std::string> context;  // a context id instead
  std::string banner;                  // printed first
  // Reads one line after showing the prompt (nullopt at end of input), e.g. a LineEditor's
  // read_line on a terminal; empty: the prompt goes to `out` and the line comes from `in`.
  std::function<std::optional<std::string>(const std::string& prompt)> read_line;
};

// Runs until end of input or ".exit"/".quit". Returns 0.
int run_repl(SandboxClient& sandbox, const ReplOptions& options, std::istream& in,
             std::ostream& out, std::ostream& err);

}  // namespace sandbox::cli
