// Splits the single C file wasm2c 1.0.32 writes into compilation units that compile in
// parallel with bounded memory, and moves data segments out of C arrays into a binary blob
// pulled in with `.incbin` (gcc otherwise spends most of its time and memory on multi-MB hex
// arrays).
//
// Output, in `out_dir`:
//   <name>_common.h   the generated prelude (macros, helpers, the wasm2c header), hidden
//                     declarations of every function and shared static object, the data
//                     segment addresses, and `extra_common` (the caller's import wrappers)
//   <name>_main.c     everything that is not a function body: init, tables, exports; its
//                     active data segment loads are skipped when the runtime's
//                     sandbox_wasm_skip_data_segments() says the memory is replaced anyway
//                     (src/wasm/data_segments.h)
//   <name>_partK.c    the function bodies, K = 0..parts-1, balanced by size
//   <name>_data.bin   all data segments, concatenated
//   <name>_data.S     `.incbin` of the blob, with its hash in a symbol so compiler caches that
//                     hash the preprocessed assembly see a change of the blob
// Functions and shared objects become non-static with hidden visibility; after compiling,
// `ld -r` of all objects plus `objcopy --localize-hidden` turns them into one object whose only
// global symbols are the ones declared with default visibility.
//
// `inline_functions` are small functions every unit should inline: they are defined static inline
// in the common header. With `fuel_field`, fuel lives in a C local per function (see below).
//
// `renames` replaces identifiers (whole tokens) in the generated code, e.g. an import symbol by
// its wrapper.
//
// Throws Wasm2cOutputError when the C file does not have the expected shape.
#pragma once

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sandbox::wasmc {

struct SplitOptions {
  std::string name;
  std::filesystem::path out_dir;
  unsigned parts = 1;
  std::string extra_common;
  std::unordered_map<std::string, std::string> renames;
  // Functions (C names) defined `static inline` in the common header instead of in a part, so
  // every unit can inline them (the fuel tick).
  std::set<std::string> inline_functions;
  // The instance field of the module's (only) memory, e.g. "w2c_memory"; empty if none. When
  // set, every function reads the memory's base address once, at entry, into a local, and the
  // loads and stores use that local: stores into linear memory are char-typed and could alias
  // `memory.data` as far as the compiler knows, which otherwise forces a reload of the base
  // after every store. Valid because this runtime never moves a memory (grow only changes
  // protections inside the 8 GiB reservation). These loads drop wasm2c's "force read" so gcc
  // can fold them into other instructions; a load whose result is unused may then be removed,
  // and such a dead out-of-bounds load does not trap (memory safety is unaffected).
  std::string memory_field;
  // The instance field of the fuel global (e.g. "w2c_fuel") and the C name of the tick
  // function (one of `inline_functions`); empty if the module is not metered. When set, every
  // function keeps its fuel in a C local: loaded at entry (after FUNC_PROLOGUE), decremented by
  // each tick (the same fuel points as before, so counts are unchanged), written back to the
  // instance before every call (direct, through an import pointer, CALL_INDIRECT, a throw),
  // before every FUNC_EPILOGUE (every return goes through one) and before an explicit
  // `unreachable`, and reloaded after every call (the callee or the host may have used or
  // refilled it). A tick that goes negative writes back and runs the tick function, which calls
  // the exhausted import (it traps or refills), then reloads. Without this the tick would
  // load, decrement and store the field on every loop iteration: stores into linear memory are
  // char-typed and may alias the instance as far as the compiler knows. Consequence: after a
  // trap other than out-of-fuel or `unreachable` (out-of-bounds access, division by zero, stack
  // exhaustion, a deadline), the instance's fuel misses the units the trapping function used
  // since its entry or its last call. A function with a try block (`wasm_rt_try`) keeps the
  // plain ticks (a local changed after setjmp is indeterminate after a throw's longjmp).
  std::string fuel_field;
  std::string fuel_tick;
};

struct SplitResult {
  std::size_t functions = 0;
  std::size_t data_segments = 0;
  std::size_t data_bytes = 0;
  std::vector<std::size_t> part_bytes;  // bytes of C per part
  std::vector<std::filesystem::path> files;
};

SplitResult split_wasm2c_source(std::string_view source, const SplitOptions& options);

}  // namespace sandbox::wasmc
