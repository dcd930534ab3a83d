// The conformance suite any engine author runs against their Engine
// (docs/build-your-own-runtime.md#running-the-conformance-suite). It throws ConformanceFailure at
// the first violated rule, naming the step and the assertion, so a test framework can report it as
// is:
//
//   sandbox::testing::run_engine_conformance(engine, {.programs = {
//       .simple = {.code = "1 + 1", .expect_result_text = "2"},
//       .error = {.code = "1 / 0"},
//       .stateful = sandbox::testing::StatefulProgram{.define = "x = 1", .use = "x + 1",
//                                                     .expect_result_text = "2"}}});
//
// Steps: (1) `simple` runs without error (and yields expect_result_text when given); (2) `error`
// returns a guest error without throwing; (3) identity and limits are well formed; (4) an engine
// without sessions stops here. Engines with sessions continue with the code-context steps, which
// drive a real InterpreterServer (contexts, snapshots, a simulated eviction, rollback, deletion,
// wipe); `stateful` is required for them.
//
// Thread-safety: each call is independent; the engine must be usable from the calling thread.
#pragma once

#include <sandbox/engine.h>
// The rest of the kit's test library, beside the conformance suite: a data-driven program
// corpus and the post-initialisation image checks, which report CheckResults.
#include <optional>
#include <stdexcept>
#include <string>

#include <sandbox/testing/check_result.h>
#include <sandbox/testing/image_checks.h>
#include <sandbox/testing/program_corpus.h>

namespace sandbox::testing {

struct SimpleProgram {
  std::string code;
  std::optional<std::string> expect_result_text;
};

struct ErrorProgram {
  std::string code;
};

struct StatefulProgram {
  std::string define;
  std::string use;
  std::string expect_result_text;
};

struct ConformancePrograms {
  SimpleProgram simple;
  ErrorProgram error;
  std::optional<StatefulProgram> stateful;  // required iff the engine has sessions
};

struct ConformanceOptions {
  ConformancePrograms programs;
  std::string key = "conformance";  // the interpreter key used by the session steps
};

class ConformanceFailure : public std::runtime_error {
 public:
  ConformanceFailure(int step, const std::string& assertion)
      : std::runtime_error("conformance step " + std::to_string(step) + ": " + assertion),
        step_(step) {}
  int step() const { return step_; }

 private:
  int step_;
};

// Runs the suite; returns normally when the engine conforms, throws ConformanceFailure otherwise.
void run_engine_conformance(const Engine& engine, const ConformanceOptions& options);

}  // namespace sandbox::testing
