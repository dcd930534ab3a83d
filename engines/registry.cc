#include "registry.h"

#include <algorithm>
#include <cctype>

namespace sandbox::engines {

// builtin_engines() is generated from the engine manifest (engines/engines.cmake,
// builtin_engines.cc.in).

const EngineEntry* find_engine(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& e : builtin_engines()) {
    if (e.name == lower) return &e;
  }
  return nullptr;
}

std::string builtin_engine_names() {
  std::string out;
  for (const auto& e : builtin_engines()) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

}  // namespace sandbox::engines
