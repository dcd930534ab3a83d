// sandbox-runtime: serves one engine built into this tree as a sandbox-workers runtime.
//   sandbox-runtime --engine calc --listen 127.0.0.1:8080 [--data DIR]
// Code contexts (engines with sessions) are stored in DIR/interpreters.db; idle keys expire after
// INTERPRETER_IDLE_TTL_MS (default 24 h, "0" disables).
#include <sandbox/runtime.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "registry.h"

int main(int argc, char** argv) {
  CLI::App app{"sandbox-runtime: serve a built-in engine (GET /interpreter, POST /execute, "
               "/interpreters/...)"};
  std::string engine_name;
  std::string data_dir;
  sandbox::ServeOptions options{.handle_signals = true};
  app.add_option("--engine", engine_name,
                 "Engine to serve: " + sandbox::engines::builtin_engine_names())
      ->required();
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--data", data_dir,
                 "Directory of the code-context database (default: data/<engine>)");
  app.add_option("--threads", options.worker_threads, "Worker threads running engine code")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  CLI11_PARSE(app, argc, argv);

  const auto* entry = sandbox::engines::find_engine(engine_name);
  if (!entry) {
    std::cerr << "sandbox-runtime: unknown engine '" << engine_name
              << "' (built: " << sandbox::engines::builtin_engine_names() << ")\n";
    return 2;
  }
  try {
    if (data_dir.empty()) data_dir = "data/" + entry->name;
    auto runtime = sandbox::define_interpreter_runtime(
        entry->make(), sandbox::RuntimeOptions{.data_dir = data_dir});
    runtime->serve(options, [&](std::uint16_t port) {
      std::cout << "sandbox-runtime (" << entry->name << ") listening on port " << port
                << std::endl;
    });
  } catch (const std::exception& e) {
    std::cerr << "sandbox-runtime: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
