// Which isolation the engine, context and server suites run their engines in: in process (the
// default), or, with SANDBOX_TEST_ISOLATION=process, in worker processes (include/sandbox/
// isolation.h). sandbox_add_test(... BOTH_ISOLATIONS) registers a suite twice, the second time
// with that variable set and its tests named process_isolation.*, so the same assertions hold in
// both modes.
#pragma once

#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/isolation.h>

namespace sandbox::test {

inline bool engines_in_worker_processes() {
  const char* mode = std::getenv("SANDBOX_TEST_ISOLATION");
  return mode != nullptr && std::string_view(mode) == "process";
}

// `engine` as the suite should use it: itself, or the same engine in two worker processes of a
// pool of its own (which lives as long as a copy of the returned engine does).
inline Engine under_test(Engine engine) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  // The pool's zygote is a fork of this multi-threaded test process. ThreadSanitizer cannot
  // follow threads started after such a fork, and AddressSanitizer's allocator can be inherited
  // locked (a worker then hangs in its first allocation): under either the copies run in
  // process, and tests/workers/engine_workers_test (whose zygote is a fresh program, as in
  // sandboxd) covers the pool.
  return engine;
#endif
  if (!engines_in_worker_processes()) return engine;
  std::vector<Engine> engines;
  engines.push_back(std::move(engine));
  auto workers = EngineWorkers::start(std::move(engines), WorkerOptions{.workers = 2});
  return workers->engine(0);
}

}  // namespace sandbox::test
