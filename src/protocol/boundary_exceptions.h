// The exception types that can reach a server boundary (sandboxd's handler, a Sandbox, the
// runtime's InterpreterServer and HTTP handler) and the answer error_response_for()
// (include/sandbox/protocol.h) makes of each: the table docs/errors.md#exceptions-at-the-boundaries
// is generated from. tests/server/exception_mapping_test.cc throws every type listed here through
// the mapping and fails when a type is missing from either side.
//
// Constant data, safe from any thread.
#pragma once

#include <span>
#include <string_view>

namespace sandbox {

struct BoundaryException {
  std::string_view type;     // "SnapshotError"
  std::string_view header;   // where it is declared
  std::string_view kind;     // "`kInternal`", or how the kind is chosen
  std::string_view message;  // the ErrorResponse message, <what> standing for what()
  std::string_view origin;   // what throws it
};

// In the order docs/errors.md lists them: the classified types, then those answered as
// kUnexpected.
std::span<const BoundaryException> boundary_exceptions();

}  // namespace sandbox
