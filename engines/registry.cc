#include "registry.h"

#include <algorithm>
#include <cctype>

namespace sandbox::engines {
namespace {

std::string join_names(const std::vector<const EngineEntry*>& entries) {
  std::string out;
  for (const auto* e : entries) {
    if (!out.empty()) out += ", ";
    out += e->name;
  }
  return out;
}

std::vector<const EngineEntry*> all_engines() {
  std::vector<const EngineEntry*> out;
  for (const auto& e : builtin_engines()) out.push_back(&e);
  return out;
}

}  // namespace

// builtin_engines() is generated from the engine manifest (engines/engines.cmake,
// builtin_engines.cc.in).

const std::vector<const EngineEntry*>& default_engines() {
  static const std::vector<const EngineEntry*> entries = [] {
    std::vector<const EngineEntry*> out;
    for (const auto& e : builtin_engines()) {
      if (e.served_by_default) out.push_back(&e);
    }
    return out;
  }();
  return entries;
}

const EngineEntry* find_engine(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& e : builtin_engines()) {
    if (e.name == lower) return &e;
  }
  return nullptr;
}

std::string builtin_engine_names() { return join_names(all_engines()); }

std::string default_engine_names() { return join_names(default_engines()); }

}  // namespace sandbox::engines
