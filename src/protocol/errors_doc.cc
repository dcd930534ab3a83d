// docs/errors.md, generated from the tables of include/sandbox/errors.h and
// protocol/boundary_exceptions.h.
#include <string>

#include <sandbox/errors.h>

#include "protocol/boundary_exceptions.h"

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
  out +=
      "\n"
      "## Exceptions at the boundaries\n"
      "\n"
      "Every server boundary (sandboxd's handler, a Sandbox, the runtime's HTTP handler and its\n"
      "InterpreterServer) answers an exception through one mapping, `error_response_for()`\n"
      "(include/sandbox/protocol.h); none remaps a type by hand. An exception names its kind:\n"
      "`ApiError` is built from one, `WorkspaceError` has it by errno, and the types below the\n"
      "protocol layer derive from `ClassifiedError` (include/sandbox/errors.h), which gives the\n"
      "kind and the message. Anything else is `kUnexpected`, 502 \"Engine execution failed\": a\n"
      "bug to report. A call that fails in a worker process keeps its class across the process\n"
      "boundary: a limit stays a limit, a `ClassifiedError` keeps its kind and message (its\n"
      "context is not carried), anything else arrives as `std::runtime_error`.\n"
      "\n"
      "| Type | Declared in | Kind | Message | Thrown by |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const BoundaryException& e : boundary_exceptions()) {
    out += "| `" + std::string(e.type) + "` | `" + std::string(e.header) + "` | " +
           std::string(e.kind) + " | " + std::string(e.message) + " | " + std::string(e.origin) +
           " |\n";
  }
  out +=
      "\n"
      "The types from `ExecutionLimitError` on are not expected at a boundary: a guest's limit or\n"
      "trap is the execution result's `error`, and a broken worker lane is `WorkerLostError`.\n"
      "The client's exceptions (`SandboxError` and its subclasses, `TransportError`,\n"
      "`EventStreamError`), the tools' (`ScaffoldError`, `ConformanceFailure`, `CorpusError`)\n"
      "and the MCP server's (`InvalidParams`, answered as JSON-RPC errors; a failing tool is a\n"
      "tool result with `isError`) never reach one. A Sandbox relays a runtime's error answer\n"
      "with `ApiError::relay()` (its status, code, context and timestamp as received); what\n"
      "answers verbatim, by `ErrorReply` (src/sandbox/error_reply.h), is a runtime's refusal of a\n"
      "context creation and the files routes' errno errors, which carry the route's context\n"
      "(docs/protocol.md#error-envelope).\n"
      "\n"
      "### Reclassified (issue: one error model)\n"
      "\n"
      "- `SnapshotError` (a corrupt stored snapshot: a chunk that does not decode, a record that\n"
      "  does not fit the engine's image) was 502 \"Engine execution failed\"; it is `kInternal`,\n"
      "  500 \"Stored snapshot is unreadable: ...\", as a stored row that is not a valid row is.\n"
      "  The engines' own checks of a snapshot they restore (a page of the wrong size, missing or\n"
      "  undecodable saved globals, a memory over the limit, a delta from another image) throw\n"
      "  it too; they were plain `std::runtime_error`s.\n"
      "- `WasmError` was 502 \"Engine execution failed\"; it is `kInternal`, 500 \"Wasm runtime\n"
      "  error: ...\".\n"
      "- A `ClassifiedError` thrown in a worker process arrived as `std::runtime_error` (502\n"
      "  \"Engine execution failed\"); it keeps its kind and message.\n"
      "- A stored context reaching an engine without sessions is `kInternal`, 500 \"This engine\n"
      "  has no session support\", wherever it is found; booting or restoring it threw\n"
      "  `std::logic_error` (502 \"Engine execution failed\").\n"
      "- `BindingError` reaching a boundary without the Sandbox's wrapping was 502 \"Engine\n"
      "  execution failed\"; it is `kUpstreamFailed`, 502 \"Binding failed: ...\".\n"
      "- `LeaseHeldError` answers as before (503, retryable, \"Sandbox unavailable on this\n"
      "  node: ...\" / \"Interpreter key unavailable on this node: ...\"), now from its own\n"
      "  message rather than a remapping in two places.\n"
      "- A relayed runtime error without a timestamp is stamped by the relaying server (it was\n"
      "  sent on with an empty one).\n";
  return out;
}

}  // namespace sandbox
