// {{project}}: serves the engine of src/engine.cc as a sandbox-workers runtime (wire protocol
// {{protocol}}): GET /interpreter, POST /execute, and /interpreters/... for code contexts.
//
//   {{project}} [--listen HOST:PORT] [--data DIR] [--threads N]
//
// --listen  default 127.0.0.1:8080; port 0 picks a free port. The port is printed once bound.
// --data    where code contexts are stored (DIR/interpreters.db, default ./data), so they
//           survive a restart (engines with sessions only).
// --threads worker threads running engine code (default 16).
// Stops gracefully on Ctrl-C (SIGINT) or SIGTERM.
#include <sandbox/runtime.h>

#include <charconv>
#include <iostream>
#include <string>
#include <string_view>

#include "engine.h"

namespace {

int usage(const char* argv0, const std::string& problem) {
  if (!problem.empty()) std::cerr << argv0 << ": " << problem << "\n";
  std::cerr << "usage: " << argv0 << " [--listen HOST:PORT] [--data DIR] [--threads N]\n";
  return problem.empty() ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  sandbox::ServeOptions serve{.listen = "127.0.0.1:8080", .handle_signals = true};
  sandbox::RuntimeOptions runtime{.data_dir = "data"};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") return usage(argv[0], "");
    if (arg != "--listen" && arg != "--data" && arg != "--threads") {
      return usage(argv[0], "unknown argument " + std::string(arg));
    }
    if (i + 1 == argc) return usage(argv[0], std::string(arg) + " needs a value");
    const std::string_view value = argv[++i];
    if (arg == "--listen") {
      serve.listen = value;
    } else if (arg == "--data") {
      runtime.data_dir = value;
    } else {
      const auto [end, ec] =
          std::from_chars(value.data(), value.data() + value.size(), serve.worker_threads);
      if (ec != std::errc() || end != value.data() + value.size() || serve.worker_threads < 1 ||
          serve.worker_threads > 1024) {
        return usage(argv[0], "--threads expects a number from 1 to 1024");
      }
    }
  }

  try {
    auto server = sandbox::define_interpreter_runtime({{project}}::make_engine(), runtime);
    server->serve(serve, [](std::uint16_t port) {
      std::cout << "{{project}} listening on port " << port << std::endl;
    });
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
