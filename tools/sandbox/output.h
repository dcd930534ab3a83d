// How the CLI prints executions and failures (shared by `run` and `repl`).
#pragma once

#include <ostream>

#include <sandbox/client.h>

namespace sandbox::cli {

inline constexpr int kGuestError = 1;
inline constexpr int kRequestFailed = 2;

// The guest's stdout lines to `out`, stderr lines to `err`, then the result (text as is, JSON
// serialized) to `out`, then the error as the language shows it (error_format.h) to `err`.
void print_result(const ExecutionResult& result, std::ostream& out, std::ostream& err);

// "sandbox: <message> (CODE, HTTP n)" on `err`. Returns kRequestFailed.
int report_failure(const SandboxError& e, std::ostream& err);

}  // namespace sandbox::cli
