#include "registry.h"

#include <algorithm>
#include <cctype>

#include "calc/calc_engine.h"
#ifdef SANDBOX_HAVE_ENGINE_KV
#include "kv/kv_engine.h"
#endif
#ifdef SANDBOX_HAVE_ENGINE_LUA
#include "lua/lua_engine.h"
#endif
#ifdef SANDBOX_HAVE_ENGINE_JAVASCRIPT
#include "javascript/javascript_engine.h"
#endif
#ifdef SANDBOX_HAVE_ENGINE_PYTHON
#include "python/python_engine.h"
#endif
#ifdef SANDBOX_HAVE_ENGINE_RUBY
#include "ruby/ruby_engine.h"
#endif
#ifdef SANDBOX_HAVE_ENGINE_PERL
#include "perl/perl_engine.h"
#endif

namespace sandbox::engines {

const std::vector<EngineEntry>& builtin_engines() {
  static const std::vector<EngineEntry> entries = {
      {"calc", make_calc_engine},
#ifdef SANDBOX_HAVE_ENGINE_KV
      {"kv", make_kv_engine},
#endif
#ifdef SANDBOX_HAVE_ENGINE_JAVASCRIPT
      {"javascript", make_javascript_engine},
#endif
#ifdef SANDBOX_HAVE_ENGINE_PYTHON
      {"python", make_python_engine},
#endif
#ifdef SANDBOX_HAVE_ENGINE_LUA
      {"lua", make_lua_engine},
#endif
#ifdef SANDBOX_HAVE_ENGINE_RUBY
      {"ruby", make_ruby_engine},
#endif
#ifdef SANDBOX_HAVE_ENGINE_PERL
      {"perl", make_perl_engine},
#endif
  };
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

std::string builtin_engine_names() {
  std::string out;
  for (const auto& e : builtin_engines()) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

}  // namespace sandbox::engines
