#include <sandbox/testing.h>


namespace sandbox::testing {
namespace {

void check(bool ok, int step, const std::string& assertion) {
  if (!ok) throw ConformanceFailure(step, assertion);
}

EngineOutcome run_step(const Engine& engine, const std::string& code, int step) {
  try {
    return engine.run(ExecutionRequest{code, {}});
  } catch (const std::exception& e) {
    throw ConformanceFailure(step, "run() threw for `" + code + "`: " + e.what() +
                                       " (guest errors must be returned as outcome.error)");
  }
}

std::string describe(const ExecutionError& e) { return e.name + ": " + e.message; }

// Steps 1-4 of §9.3: the stateless contract and the engine's identity.
void run_stateless_steps(const Engine& engine, const ConformancePrograms& programs) {
  check(static_cast<bool>(engine.run), 1, "engine.run must be set");
  const EngineOutcome simple = run_step(engine, programs.simple.code, 1);
  check(!simple.error, 1,
        "`" + programs.simple.code + "` must run without error, got " +
            (simple.error ? describe(*simple.error) : std::string()));
  if (programs.simple.expect_result_text) {
    const std::string want = *programs.simple.expect_result_text;
    check(!simple.results.empty() && simple.results[0].text, 1,
          "`" + programs.simple.code + "` must yield a text result '" + want + "'");
    check(*simple.results[0].text == want, 1,
          "`" + programs.simple.code + "` must yield '" + want + "', got '" +
              *simple.results[0].text + "'");
  }
  for (const auto& r : simple.results) {
    check(r.text.has_value() != r.json.has_value(), 1,
          "each result entry must carry exactly one of text or json");
  }

  const EngineOutcome error = run_step(engine, programs.error.code, 2);
  check(error.error.has_value(), 2, "`" + programs.error.code + "` must return outcome.error");
  check(!error.error->name.empty(), 2, "outcome.error.name must not be empty");

  check(!engine.language.empty(), 3, "language must not be empty");
  check(!engine.engine_name.empty(), 3, "engine_name must not be empty");
  check(!engine.build.empty(), 3, "build must not be empty");
  check(engine.limits.memory_bytes > 0, 3, "limits.memory_bytes must be > 0");
  check(engine.limits.code_bytes > 0, 3, "limits.code_bytes must be > 0");
  check(engine.limits.request_bytes > 0, 3, "limits.request_bytes must be > 0");
}

}  // namespace

void run_engine_conformance(const Engine& engine, const ConformanceOptions& options) {
  run_stateless_steps(engine, options.programs);
  if (!engine.sessions) return;  // step 4: stateless-only engines pass here
  check(options.programs.stateful.has_value(), 5,
        "an engine with sessions needs programs.stateful");
  check(static_cast<bool>(engine.sessions->boot) && static_cast<bool>(engine.sessions->restore), 5,
        "sessions.boot and sessions.restore must both be set");
  throw ConformanceFailure(5, "the code-context steps need the InterpreterServer, which this "
                              "build does not include yet");
}

}  // namespace sandbox::testing
