// The post-initialisation image checks: for an engine whose stateless runs start from an image
// of the interpreter taken after its start-up (make_embedded_engine() does this, reusing an
// instance reset to the image when nothing can have leaked from it), that nothing one run does
// is visible to the next. Each check takes programs in the engine's language and returns a
// CheckResult (check_result.h); check_post_init_image() runs them all. One more check here,
// check_a_context_survives_a_restart_of_the_runtime(), covers durability of code contexts
// across a restart of the runtime. How to call them:
// docs/build-your-own-runtime.md#running-the-program-corpus-and-the-image-checks.
//
// Thread-safety: each check calls the engine from the calling thread, except
// check_concurrent_stateless_runs(), which calls engine.run() from kConcurrentThreads threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/testing/check_result.h>

namespace sandbox::testing {

// How many times the checks below repeat a run, and with how many threads.
inline constexpr int kStateRounds = 4;      // leave state, then observe, this many times
inline constexpr int kRunsAfterGrowth = 3;  // runs checked after the memory grew
inline constexpr int kConcurrentThreads = 4;
inline constexpr int kRunsPerThread = 5;
// A small stateless run must use less than limits.fuel / kStartUpFuelDivisor: the
// interpreter's start-up is paid once, by the image, not by each run.
inline constexpr std::uint64_t kStartUpFuelDivisor = 1000;

// `leave_state` (run with the environment variable A=1) leaves state behind: globals,
// functions, changed libraries, environment variables, a changed cwd... `observe` must then
// yield the text result `fresh` (as from the image) in each of kStateRounds rounds. Fails when
// `leave_state` reports an error or `observe` does not yield `fresh`.
CheckResult check_stateless_runs_do_not_share_state(const Engine& engine,
                                                    const std::string& leave_state,
                                                    const std::string& observe,
                                                    const std::string& fresh);

// Each of `failing` sets something and then makes run() throw (fuel, an output flood, exit);
// after each, `observe` must yield the text result `fresh`: a trapped run leaves nothing
// behind either.
CheckResult check_runs_after_a_failed_run_start_from_the_image(
    const Engine& engine, const std::vector<std::string>& failing, const std::string& observe,
    const std::string& fresh);

// `grow` must succeed and make the instance's memory (usage.memory_bytes) larger than `small`'s;
// each of the kRunsAfterGrowth runs of `small` after it must report the image's memory size
// again (a reset cannot shrink an instance, so a grown one must not be reused). Requires the
// engine to report usage.
CheckResult check_a_grown_instance_is_not_reused(const Engine& engine, const std::string& grow,
                                                 const std::string& small = "1");

// kConcurrentThreads threads each run kRunsPerThread programs `store_and_double(n)`, which must
// store n in a global and yield the text 2n: every run must, whatever runs beside it.
CheckResult check_concurrent_stateless_runs(
    const Engine& engine, const std::function<std::string(int)>& store_and_double);

// `small` (a trivial program) must use less than limits.fuel / kStartUpFuelDivisor. Requires a
// metered engine (limits.fuel > 0) that reports usage. Notes the fuel and memory used.
CheckResult check_start_up_uses_little_of_the_fuel_budget(const Engine& engine,
                                                          const std::string& small = "1 + 1");

// Code contexts live in SQLite: in a runtime over a new temporary data directory,
// context "ctx-1" of key "key-1" runs `define`; a second runtime over the same directory (a
// restart: the first one is destroyed, and make_engine() is called again) runs `use` in that
// context, which must yield `expected` (its text result, or its JSON result serialized) as the
// context's execution 2. Requires an engine with sessions. The directory is removed afterwards.
CheckResult check_a_context_survives_a_restart_of_the_runtime(
    const std::function<Engine()>& make_engine, const std::string& define, const std::string& use,
    const std::string& expected);

// The programs of check_post_init_image(), in the engine's language.
struct ImageCheckPrograms {
  // check_stateless_runs_do_not_share_state
  std::string leave_state;
  std::string observe_state;
  std::string fresh_state;
  // check_runs_after_a_failed_run_start_from_the_image
  std::vector<std::string> failing;
  std::string observe_failed;
  std::string fresh_failed;
  // check_a_grown_instance_is_not_reused
  std::string grow;
  // check_concurrent_stateless_runs
  std::function<std::string(int)> store_and_double;
  // A trivial program: the baseline of the growth check, and the fuel check's program.
  std::string small = "1";
  // Run check_start_up_uses_little_of_the_fuel_budget (needs a metered engine).
  bool check_start_up_fuel = true;
};

// Runs the image checks above with `programs`, in the order of the struct; a program left empty
// is a failure of its check, not a skip.
std::vector<CheckResult> check_post_init_image(const Engine& engine,
                                               const ImageCheckPrograms& programs);

}  // namespace sandbox::testing
