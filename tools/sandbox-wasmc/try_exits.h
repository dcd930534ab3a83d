// Repairs branches out of `try` blocks in the C that wasm2c 1.0.32 writes with
// --enable-exceptions.
//
// wasm2c opens a try block by pointing the thread's unwind target (where a throw longjmps) at a
// jump buffer in the enclosing C function, and restores the previous target when the body ends
// normally, on `return` and in the catch code. It does not restore it on a `br`, `br_if` or
// `br_table` that leaves the body: the target then still names a buffer of a try that is over,
// and a later throw would longjmp into it (into a frame that may have returned). This rewrites
// every such `goto LABEL;` in a try body, where LABEL is defined outside that body, into
//     { wasm_rt_set_unwind_target(<outermost left try>_outer_target); goto LABEL; }
// which is what wasm2c's own `return` does.
//
// The C is recognised by wasm2c's shape: a try body is the block opened by
// `if (!wasm_rt_try(w2c_T<n>_unwind_target)) {` and the label definitions in it are lines
// `w2c_<id>:`. Throws Wasm2cOutputError (wasm2c_header.h) when a try body's braces do not close.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sandbox::wasmc {

struct TryExitRepair {
  std::string source;
  std::size_t try_blocks = 0;
  std::size_t repaired_branches = 0;
};

TryExitRepair repair_try_exits(std::string_view source);

}  // namespace sandbox::wasmc
