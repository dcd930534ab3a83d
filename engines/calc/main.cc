// sandbox-calc: the calc engine served as a sandbox-workers runtime.
//   sandbox-calc --listen 127.0.0.1:8080     (port 0 picks a free port and prints it)
#include <iostream>

#include <CLI/CLI.hpp>

#include <sandbox/runtime.h>

#include "calc_engine.h"

int main(int argc, char** argv) {
  CLI::App app{"sandbox-calc: the calc example runtime (GET /interpreter, POST /execute)"};
  sandbox::ServeOptions options{.handle_signals = true};
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto runtime = sandbox::define_interpreter_runtime(sandbox::engines::make_calc_engine());
  try {
    runtime->serve(options, [&](std::uint16_t port) {
      std::cout << "sandbox-calc listening on port " << port << std::endl;
    });
  } catch (const std::exception& e) {
    std::cerr << "sandbox-calc: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
