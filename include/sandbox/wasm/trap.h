// Traps: how a guest call that did not return normally is reported. Guest failures are values:
// a trap (out-of-bounds access, unreachable, stack exhaustion, fuel, deadline, proc_exit, an
// import that trapped) comes back in CallResult::trap, never as a C++ exception and never as a
// crash of the process. After any trap except kExit the instance that raised it is invalid
// (instance.h, the state machine).
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sandbox::wasm {

enum class TrapKind : std::uint8_t {
  kNone,
  kOutOfBounds,      // linear memory or table access out of bounds
  kIntegerOverflow,  // signed division overflow, float->int truncation overflow
  kDivideByZero,
  kInvalidConversion,     // NaN to integer
  kUnreachable,           // `unreachable` executed (e.g. abort() in the guest)
  kIndirectCallMismatch,  // call_indirect to a null entry or with the wrong signature
  kUncaughtException,     // Wasm exception handling: throw without catch
  kStackExhausted,        // native stack guard page reached
  kExit,                  // proc_exit(code): exit_code is set; does not invalidate
  kOutOfFuel,             // fuel exhausted -> ExecutionLimitError "Execution fuel exhausted"
  kDeadline,              // wall-clock deadline -> "Execution time limit exceeded"
  kOutputLimit,           // stdout/stderr capture over its limit -> "Output limit exceeded"
  kUnsupportedImport,     // the guest called an import the host does not provide
  kHostError,             // an import failed in a way the guest cannot handle
  kUnknown,               // an unrecognised trap code (message says which)
};

// The outcome of a guest call that did not return normally.
struct Trap {
  TrapKind kind = TrapKind::kNone;
  std::uint32_t exit_code = 0;  // kExit only
  std::string message;          // human-readable; for limits, the ExecutionLimitError message

  bool ok() const { return kind == TrapKind::kNone; }
  // Fuel, deadline and output limit: reported as ExecutionLimitError(message).
  bool is_limit() const {
    return kind == TrapKind::kOutOfFuel || kind == TrapKind::kDeadline ||
           kind == TrapKind::kOutputLimit;
  }
  // Whether the instance that raised it is invalid afterwards (everything but kNone, kExit).
  bool invalidates() const { return kind != TrapKind::kNone && kind != TrapKind::kExit; }
};

// "Out-of-bounds memory access", "Execution fuel exhausted", ... (the default message).
std::string_view trap_kind_message(TrapKind kind);
// Stable identifier: "none", "out_of_bounds", "out_of_fuel", ...
std::string_view trap_kind_name(TrapKind kind);
// The Trap for a raw trap code (wasm_rt_trap_t or SANDBOX_TRAP_*).
Trap trap_from_code(std::uint32_t code);

// The outcome of a guest call: the trap (kNone when it returned normally) and its result.
template <class R>
struct CallResult {
  Trap trap;
  R value{};  // meaningful only when ok()
  bool ok() const { return trap.ok(); }
};
template <>
struct CallResult<void> {
  Trap trap;
  bool ok() const { return trap.ok(); }
};

}  // namespace sandbox::wasm
