// docs/errors.md, generated from the tables of include/sandbox/errors.h.
#include <string>

#include <sandbox/errors.h>

namespace sandbox {

std::string errors_markdown() {
  std::string out =
      "# Errors\n"
      "\n"
      "<!-- Generated from include/sandbox/errors.h by tools/gen_errors_doc; do not edit.\n"
      "     Regenerate: build/default/tools/gen_errors_doc/gen_errors_doc > docs/errors.md -->\n"
      "\n"
      "Every failure a server answers is an `ErrorResponse` envelope\n"
      "(`{code, message, context, httpStatus, timestamp, operation?}`, "
      "include/sandbox/protocol.h)\n"
      "of one error kind. The kind fixes the wire `code`, the HTTP status, and whether a client\n"
      "may send the same request again (retryable: the failure changed nothing and may pass\n"
      "later). A guest's own failure (a trap, fuel, the memory cap) is not an error here: it is\n"
      "the execution result's `error` field, with status 200.\n"
      "\n"
      "## Kinds\n"
      "\n"
      "| Kind | Code | HTTP | Retryable | Meaning |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const ErrorKindInfo& k : error_kinds()) {
    out += "| `" + std::string(k.name) + "` | `" + std::string(error_code_name(k.code)) + "` | " +
           (k.http_status == 0 ? std::string("-") : std::to_string(k.http_status)) + " | " +
           (k.retryable ? "yes" : "no") + " | " + std::string(k.meaning) + " |\n";
  }
  out +=
      "\n"
      "A client maps a received (code, status) pair back to the first kind above that has both,\n"
      "else to the first kind with the code and its default status (below), else to `kInternal`\n"
      "(`error_kind_for()`). Pairs that two kinds share read as the first: a client sees\n"
      "`kStorageFailure` as `kInternal` and does not retry it on its own.\n"
      "\n"
      "## Wire codes\n"
      "\n"
      "The closed set of `code` strings, each with the status a client derives when an answer\n"
      "carries no `httpStatus`; an unknown code reads as `INTERNAL_ERROR` with status 500.\n"
      "\n"
      "| Code | Default HTTP |\n"
      "| --- | --- |\n";
  for (const ErrorCode code : {
#define SANDBOX_ERROR_CODE_VALUE(name, wire, status) ErrorCode::name,
           SANDBOX_ERROR_CODES(SANDBOX_ERROR_CODE_VALUE)
#undef SANDBOX_ERROR_CODE_VALUE
       }) {
    out += "| `" + std::string(error_code_name(code)) + "` | " +
           std::to_string(error_code_status(code)) + " |\n";
  }
  return out;
}

}  // namespace sandbox
