// The whole engine definition: identity, limits, and a stateless `run` that returns guest-level
// errors as values (never throws for them).
#include "calc_engine.h"

#include "calc_eval.h"

namespace sandbox::engines {

Engine make_calc_engine() {
  return Engine{
      .language = "calc",
      .engine_name = "calc 1.0",
      .build = "calc-1.0",  // a snapshot from another build would boot fresh (calc has none)
      .limits = {.fuel = 0, .memory_bytes = 1 << 20, .code_bytes = 65536, .request_bytes = 98304},
      .run =
          [](const ExecutionRequest& request) {
            EngineOutcome outcome;
            try {
              const double value = calc::evaluate(request.code, request.env_vars);
              outcome.results.push_back(ResultEntry::of_text(calc::format_number(value)));
            } catch (const calc::CalcError& e) {
              outcome.error = ExecutionError{
                  .name = e.name, .message = e.what(), .traceback = {}, .line_number = 1};
            }
            return outcome;
          },
      .sessions = std::nullopt,  // stateless only: GET /interpreter reports contexts: false
  };
}

}  // namespace sandbox::engines
