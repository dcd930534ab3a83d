// Snapshots of an instance: a copy of its linear memory and, by policy, its mutable globals
// (Instance::snapshot and Instance::restore, instance.h). This is the in-memory copy; how
// sessions store it as page hashes and chunks is docs/snapshot-format.md.
//
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace sandbox::wasm {

// What a memory-only snapshot does about mutable globals (`__stack_pointer`, asyncify state).
enum class GlobalsPolicy : std::uint8_t {
  kRequireInitial,  // refuse (WasmError) unless they equal their post-instantiation values
  kSave,            // save them in Snapshot::globals and write them back on restore
};

// A copy of an instance's state: linear memory and (optionally) its mutable globals.
struct Snapshot {
  std::uint32_t pages = 0;
  std::vector<std::uint8_t> memory;                  // pages * 65536 bytes
  std::optional<std::vector<std::uint8_t>> globals;  // see Instance::save_globals()
};

}  // namespace sandbox::wasm
