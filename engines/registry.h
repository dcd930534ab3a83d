// The engines built into this tree, by name: those of the engine manifest (engines/engines.cmake)
// this build selected. Used by sandbox-runtime (--engine finds any of them) and sandboxd (--engines
// finds any of them; without it, GET /languages lists default_engines()).
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
  // False for a test engine (DEFAULT TEST in the manifest: kv, built only with the tests): it is
  // served only when named (sandboxd --engines kv), so a default server offers users' languages
  // alone.
  bool served_by_default = true;
};

// Every engine this build includes, in the manifest's order (generated: builtin_engines.cc.in).
const std::vector<EngineEntry>& builtin_engines();

// What sandboxd serves when no --engines is given: the entries of builtin_engines() that are
// served_by_default, in the same order.
const std::vector<const EngineEntry*>& default_engines();

// The entry named `name` (case-insensitive) among all of builtin_engines(), test engines
// included, or nullptr.
const EngineEntry* find_engine(std::string_view name);

// "calc, kv, lua, ..." (every built engine) for messages.
std::string builtin_engine_names();

// "calc, lua, ..." (default_engines()) for messages.
std::string default_engine_names();

}  // namespace sandbox::engines
