// Trap codes -> Trap values.
#include <sandbox/wasm/trap.h>

#include "wasm/host_call.h"

namespace sandbox::wasm {
namespace {

struct KindInfo {
  TrapKind kind;
  std::string_view name;
  std::string_view message;
};

// One row per TrapKind, in enum order (trap_test checks the order).
constexpr KindInfo kKinds[] = {
    {TrapKind::kNone, "none", "No trap"},
    {TrapKind::kOutOfBounds, "out_of_bounds", "Out-of-bounds memory access"},
    {TrapKind::kIntegerOverflow, "integer_overflow", "Integer overflow"},
    {TrapKind::kDivideByZero, "divide_by_zero", "Integer divide by zero"},
    {TrapKind::kInvalidConversion, "invalid_conversion", "Invalid conversion to integer"},
    {TrapKind::kUnreachable, "unreachable", "Unreachable code executed"},
    {TrapKind::kIndirectCallMismatch, "indirect_call", "Indirect call signature mismatch"},
    {TrapKind::kUncaughtException, "uncaught_exception", "Uncaught Wasm exception"},
    {TrapKind::kStackExhausted, "stack_exhausted", "Call stack exhausted"},
    {TrapKind::kExit, "exit", "Guest exited"},
    {TrapKind::kOutOfFuel, "out_of_fuel", "Execution fuel exhausted"},
    {TrapKind::kDeadline, "deadline", "Execution time limit exceeded"},
    {TrapKind::kOutputLimit, "output_limit", "Output limit exceeded"},
    {TrapKind::kUnsupportedImport, "unsupported_import", "Unsupported import called"},
    {TrapKind::kHostError, "host_error", "Host error"},
    {TrapKind::kUnknown, "unknown", "Unknown trap"},
};

const KindInfo& info(TrapKind kind) {
  auto i = static_cast<std::size_t>(kind);
  return i < std::size(kKinds) ? kKinds[i] : kKinds[std::size(kKinds) - 1];
}

TrapKind kind_of(std::uint32_t code) {
  switch (code) {
    case WASM_RT_TRAP_NONE:
      return TrapKind::kNone;
    case WASM_RT_TRAP_OOB:
      return TrapKind::kOutOfBounds;
    case WASM_RT_TRAP_INT_OVERFLOW:
      return TrapKind::kIntegerOverflow;
    case WASM_RT_TRAP_DIV_BY_ZERO:
      return TrapKind::kDivideByZero;
    case WASM_RT_TRAP_INVALID_CONVERSION:
      return TrapKind::kInvalidConversion;
    case WASM_RT_TRAP_UNREACHABLE:
      return TrapKind::kUnreachable;
    case WASM_RT_TRAP_CALL_INDIRECT:
      return TrapKind::kIndirectCallMismatch;
    case WASM_RT_TRAP_UNCAUGHT_EXCEPTION:
      return TrapKind::kUncaughtException;
    case WASM_RT_TRAP_EXHAUSTION:
      return TrapKind::kStackExhausted;
    case SANDBOX_TRAP_EXIT:
      return TrapKind::kExit;
    case SANDBOX_TRAP_OUT_OF_FUEL:
      return TrapKind::kOutOfFuel;
    case SANDBOX_TRAP_INTERRUPTED:
      return TrapKind::kDeadline;
    case SANDBOX_TRAP_OUTPUT_LIMIT:
      return TrapKind::kOutputLimit;
    case SANDBOX_TRAP_UNSUPPORTED:
      return TrapKind::kUnsupportedImport;
    case SANDBOX_TRAP_HOST_ERROR:
      return TrapKind::kHostError;
    default:
      return TrapKind::kUnknown;
  }
}

}  // namespace

std::string_view trap_kind_message(TrapKind kind) { return info(kind).message; }
std::string_view trap_kind_name(TrapKind kind) { return info(kind).name; }

Trap trap_from_code(std::uint32_t code) {
  Trap trap;
  trap.kind = kind_of(code);
  trap.message = std::string(trap_kind_message(trap.kind));
  if (trap.kind == TrapKind::kUnknown) trap.message += " (code " + std::to_string(code) + ")";
  return trap;
}

}  // namespace sandbox::wasm
