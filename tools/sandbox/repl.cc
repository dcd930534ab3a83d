#include "repl.h"

#include "live_output.h"
#include "output.h"
#include "repl_input.h"

namespace sandbox::cli {

int run_repl(SandboxClient& sandbox, const ReplOptions& options, std::istream& in,
             std::ostream& out, std::ostream& err) {
  if (!options.banner.empty()) out << options.banner << "\n";
  ReplInput input;
  std::string line;
  for (;;) {
    const std::string prompt = input.empty() ? ">>> " : "... ";
    std::optional<std::string> next;
    if (options.read_line) {
      next = options.read_line(prompt);
    } else if (out << prompt << std::flush; std::getline(in, line)) {
      next = std::move(line);
    }
    if (!next) {
      out << "\n" << std::flush;
      return 0;
    }
    line = std::move(*next);
    if (input.empty() && (line == ".exit" || line == ".quit")) return 0;
    if (!input.add_line(line)) continue;
    const std::string code = input.take();
    if (code.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    try {
      SandboxRunOptions run;
      if (options.context) {
        run.context = options.context;
      } else {
        run.binding = options.binding;
      }
      LiveOutput live(out, err);
      run.on_stdout_text = live.on_stdout();
      run.on_stderr_text = live.on_stderr();
      print_result(live.rest(sandbox.run_code(code, run)), out, err);
    } catch (const SandboxError& e) {
      report_failure(e, err);
    }
  }
}

}  // namespace sandbox::cli
