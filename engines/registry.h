// The engines built into this tree, by name: those of the engine manifest (engines/engines.cmake)
// this build selected. Used by sandbox-runtime and sandboxd (whose GET /languages lists them).
//
// Thread-safety: read-only after static initialization; make() may be called from any thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/engine.h>

namespace sandbox::engines {

struct EngineEntry {
  std::string name;  // the engine's language name: "calc", "lua", ...
  std::function<Engine()> make;
};

// Every engine this build includes, in the manifest's order (generated: builtin_engines.cc.in).
const std::vector<EngineEntry>& builtin_engines();

// The entry named `name` (case-insensitive), or nullptr.
const EngineEntry* find_engine(std::string_view name);

// "calc, kv, lua, ..." for messages.
std::string builtin_engine_names();

}  // namespace sandbox::engines
