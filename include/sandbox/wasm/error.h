// WasmError: the Wasm runtime's exception, reserved for misuse by the embedder (an unknown
// export, a signature mismatch, restoring into a used instance, a memory cap below the module's
// initial size, a missing import context). A guest's failure is never a WasmError: it is a Trap
// value (trap.h).
//
// Thread-safety: a value type.
#pragma once

#include <stdexcept>
#include <string>

#include <sandbox/errors.h>

namespace sandbox::wasm {

// Misuse of this API by the embedder (never a guest failure). What reaches a server boundary is a
// restore the module cannot take (a stored memory or globals that do not fit it) or an instance
// left unusable: ErrorKind::kInternal (500 INTERNAL_ERROR "Wasm runtime error: ...",
// docs/errors.md).
class WasmError : public std::runtime_error, public ClassifiedError {
 public:
  using std::runtime_error::runtime_error;
  ErrorKind kind() const noexcept override { return ErrorKind::kInternal; }
  std::string wire_message() const override { return std::string("Wasm runtime error: ") + what(); }
};

}  // namespace sandbox::wasm
