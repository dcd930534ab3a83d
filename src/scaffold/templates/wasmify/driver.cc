// {{project}}'s wasmify driver (driver.h). The module's API functions: {{methods}}. N in
// w_0_<N> is the position of the function in the alphabetically sorted list of the functions
// its embedding header exports.
//
// Complete it: the method ids below, how the eval method's answer is read, and how one request
// is phrased as a script of your language (the kit's guide, "The wasmify ABI").
#include "driver.h"

#include <stdexcept>
#include <string>

namespace {{project}} {
namespace {

// The eval method's response: field 1 is the function's return value. This reads it as the text
// of the script's value; replace it with your interpreter's answer (a JSON object, a binary
// record) to report its stdout, its stderr and its errors (ok = false, error = the message).
sandbox::WasmifyEval read_eval(const sandbox::wasmify::Response& response) {
  const auto value = response.bytes(1);
  if (!value) throw std::runtime_error("{{project}}: the eval method answered no string");
  sandbox::WasmifyEval eval;
  eval.value = std::string(*value);
  return eval;
}

// One request as a script of your language. Here: the code as it is. A complete driver calls a
// helper its boot script defines, passing the code, request.cwd and request.env, which catches
// the code's errors and answers the JSON envelope {"results": [...], "error": {...}, "cwd": ...}
// (then drop read_execute below: that envelope is the default).
std::string phrase_execute(const sandbox::DriverRequest& request) {
  return std::string(request.code);
}

// The script's value as the reply: its text as the one result.
sandbox::GuestReply read_execute(std::string_view value) {
  sandbox::GuestReply reply;
  if (!value.empty()) reply.results.push_back(sandbox::ResultEntry::of_text(std::string(value)));
  return reply;
}

}  // namespace

sandbox::WasmifyDriver make_driver() {
  return sandbox::WasmifyDriver{
      // Fill these in: the w_0_<N> of the function that creates the interpreter (called with
      // the standard library's directory, "/stdlib"; it answers the handle) and of the one that
      // evaluates a script (called with the handle and the source). Until then, making the
      // engine fails with "A wasmify driver needs its init and eval method ids".
      .init_method = "",
      .eval_method = "",
      .read_eval = read_eval,
      .phrase_execute = phrase_execute,
      .read_execute = read_execute,
      // Evaluated once when the interpreter's image is made (define your helpers here), and on
      // every copy of the image or of a snapshot (re-seed random generators).
      .boot_script = "",
      .after_copy_script = "",
      .fingerprint = "{{project}} driver 1",  // change it when the driver's code changes
  };
}

}  // namespace {{project}}
