// Splits the single C file wasm2c 1.0.32 writes into compilation units that compile in
// parallel with bounded memory, and moves data segments out of C arrays into a binary blob
// pulled in with `.incbin` (gcc otherwise spends most of its time and memory on multi-MB hex
// arrays).
//
// The output, as in-memory files (SplitResult::files) the caller writes into one directory:
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
// split_wasm2c_source runs three kinds of steps, none of which touches the disk:
//   classify_wasm2c_source   the source as a model: its prelude and its top-level items (lines
//                            of main.c, prototypes, functions, data segments, shared objects),
//                            as views into the source (which must outlive the model)
//   the passes               each rewrites the model in place (mark_inline_functions,
//                            collect_data_segments, guard_data_loads, plan_fuel_local,
//                            assign_parts: their contracts are below)
//   emit_split               the files, from the model and the options
// The source is never copied whole: the model holds views and the passes decide per item or
// per line; only emit_split writes text, once, into the files.
//
// Throws Wasm2cOutputError when the C file does not have the expected shape. Thread-safety:
// the functions share no state; a model is not to be used by two threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sandbox::wasmc {

struct SplitOptions {
  std::string name;
  // The directory the caller writes the files into. Only <name>_data.S uses it: its `.incbin`
  // names <out_dir>/<name>_data.bin by its absolute path (std::filesystem::absolute, which
  // reads the working directory when out_dir is relative; no file is accessed).
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

// One output file: its name within out_dir and its bytes.
struct SplitFile {
  std::string name;
  std::string contents;
};

struct SplitResult {
  std::size_t functions = 0;
  std::size_t data_segments = 0;
  std::size_t data_bytes = 0;
  std::vector<std::size_t> part_bytes;  // bytes of C per part
  // <name>_common.h, <name>_main.c, <name>_part0.c ... <name>_part{parts-1}.c, <name>_data.bin,
  // <name>_data.S, in this order.
  std::vector<SplitFile> files;
};

// All the steps below; the result's files are for the caller to write into options.out_dir.
// Throws std::invalid_argument if options.parts is 0 or options.fuel_tick (when fuel_field is
// set) is not one of options.inline_functions, Wasm2cOutputError if the source does not have
// the shape of wasm2c 1.0.32's output.
SplitResult split_wasm2c_source(std::string_view source, const SplitOptions& options);

// --- The model and the steps, for split_wasm2c_source and its tests ----------------------------

// What a range of lines after the prelude is. classify_wasm2c_source sets the first five kinds;
// the passes turn some items into the others.
enum class ItemKind : std::uint8_t {
  kLine,             // one line of main.c (init functions, tables, exports...)
  kPrototype,        // `static RET w2c_f(...);`, possibly over several lines
  kFunction,         // `static RET w2c_f(...) {` through its closing `}` line
  kDataSegment,      // `static const u8 data_segment_data_X[] = {` through `};`
  kSharedObject,     // any other top-level static object (func types, element segments)
  kInlinePrototype,  // mark_inline_functions: an inline function's prototype (dropped)
  kInlineFunction,   // mark_inline_functions: defined static inline in the common header
  kGuardedLoadData,  // guard_data_loads: a `  LOAD_DATA(` line, run unless the runtime skips it
  kLoadDataRun,      // guard_data_loads: a run of loads from the blob, emitted as a table
};

struct Wasm2cItem {
  ItemKind kind = ItemKind::kLine;
  std::size_t begin = 0;  // its first line
  std::size_t end = 0;    // one past its last line
  // kPrototype, kFunction and their inline kinds: the function's C name (`w2c_f`);
  // kDataSegment: the array's name (`data_segment_data_w2c_d0`). A view into the source.
  std::string_view symbol;
  // kDataSegment: where its bytes start in Wasm2cModel::blob (collect_data_segments).
  std::size_t blob_offset = 0;
  // kLoadDataRun: the index of its first row in Wasm2cModel::load_data_rows (one per line).
  std::size_t first_row = 0;
  // kFunction: the part it goes to (assign_parts).
  unsigned part = 0;
};

// A `  LOAD_DATA(MEMORY, DEST, SEGMENT, SIZE);` line whose segment is in the blob at SRC.
struct LoadDataRow {
  std::string_view memory;  // `instance->w2c_memory`
  std::string_view dest;    // `1024u`
  std::size_t src = 0;
  std::string_view size;  // `16`
};

// How plan_fuel_local rewrites one line of a function body (see SplitOptions::fuel_field).
enum class FuelEdit : std::uint8_t {
  kKeep,      // unchanged
  kEnter,     // `FUNC_PROLOGUE;`: then SANDBOX_WASMC_FUEL_ENTER
  kEpilogue,  // `FUNC_EPILOGUE;`: SANDBOX_WASMC_FUEL_SAVE first
  kTick,      // the tick call: SANDBOX_WASMC_TICK instead
  kCall,      // a call: SANDBOX_WASMC_FUEL_SAVE before, SANDBOX_WASMC_FUEL_LOAD after
  kTrap,      // `UNREACHABLE;`: SANDBOX_WASMC_FUEL_SAVE before
};

struct Wasm2cModel {
  std::vector<std::string_view> lines;  // the source's lines, without their '\n'
  std::size_t prelude_end = 0;    // lines [0, prelude_end) are the prelude (the common header's)
  std::vector<Wasm2cItem> items;  // cover lines [prelude_end, lines.size()) in order
  std::string blob;               // collect_data_segments: the data segments' bytes
  std::vector<LoadDataRow> load_data_rows;  // guard_data_loads: the kLoadDataRun items' rows
  std::vector<FuelEdit> fuel_edits;         // plan_fuel_local: one per line; empty: none rewritten
};

// Reads `source` (the C file of wasm2c 1.0.32) into a model whose views point into it: the
// prelude ends at the `static bool s_module_initialized` line; after it, a function
// signature (possibly wrapped) ending in `);` is a kPrototype and one ending in `) {` a
// kFunction through the next line that is exactly `}`; a top-level `static` object is a
// kDataSegment (a `const u8 data_segment_data_*[]` array) or a kSharedObject, through the next
// `};` when its line ends in `{`; every other line is a kLine. Throws Wasm2cOutputError if
// there is no s_module_initialized line, or a signature, function or initializer is not
// terminated.
Wasm2cModel classify_wasm2c_source(std::string_view source);

// Pass: the prototypes and functions named in `names` become kInlinePrototype and
// kInlineFunction. Other items are unchanged.
void mark_inline_functions(Wasm2cModel& model, const std::set<std::string>& names);

// Pass: appends the bytes of every kDataSegment (its `0x..` lines), in source order, to
// model.blob and sets its blob_offset. Throws Wasm2cOutputError on a byte that is not two hex
// digits.
void collect_data_segments(Wasm2cModel& model);

// The shortest run of LOAD_DATA lines that guard_data_loads turns into a table.
constexpr std::size_t kMinLoadDataRun = 16;

// Pass, after collect_data_segments: every kLine starting with `  LOAD_DATA(` is guarded by the
// runtime's sandbox_wasm_skip_data_segments(). At least kMinLoadDataRun consecutive lines of
// the exact form `  LOAD_DATA(instance->w2c_M, <n>u, SEGMENT, <n>);` on the same memory, each
// SEGMENT a kDataSegment defined above, become one kLoadDataRun (with one row per line in
// model.load_data_rows), emitted as a table and a loop (thousands of LOAD_DATA lines in one
// function take gcc minutes); any other such line becomes a kGuardedLoadData.
void guard_data_loads(Wasm2cModel& model);

// Pass: for every kFunction without a try block (a line containing `wasm_rt_try(`: a local
// changed after its setjmp would be indeterminate after the longjmp of a throw), sets the
// FuelEdit of each line after its first (see SplitOptions::fuel_field); model.fuel_edits gets
// one entry per line, kKeep elsewhere. The shapes are wasm2c 1.0.32's: `FUNC_PROLOGUE;` once
// after the locals, `FUNC_EPILOGUE;` before every return, the call of `fuel_tick` as a
// statement of its own, every call on one line ending in `;`. Throws Wasm2cOutputError for a
// call that is not a statement of its own.
void plan_fuel_local(Wasm2cModel& model, const std::string& fuel_tick);

// Pass: sets the part of every kFunction, in source order and non-decreasing, so that parts
// hold about equal bytes of C: a function goes to the next part once the bytes before it reach
// that part's share. Throws std::invalid_argument if parts is 0.
void assign_parts(Wasm2cModel& model, unsigned parts);

// The files (see SplitResult) of a model after the passes, with the SplitResult counts. Takes
// the model to move its blob into <name>_data.bin rather than copy it.
// Reads options' name, out_dir (see SplitOptions), parts, extra_common, renames,
// memory_field, fuel_field and fuel_tick. Requires every kFunction's part to be below parts.
// Throws nothing but std::bad_alloc.
SplitResult emit_split(Wasm2cModel model, const SplitOptions& options);

}  // namespace sandbox::wasmc
