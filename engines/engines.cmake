# The engine manifest: every engine of this tree, written once. It drives
#   the build      engines/CMakeLists.txt adds the directory of each selected engine and checks
#                  that it defined TARGET;
#   the registry   engines/builtin_engines.cc.in is generated from it (builtin_engines(): what
#                  sandboxd serves, so GET /languages, and what sandbox-runtime --engine finds);
#   the install    cmake/SandboxInstall.cmake installs and exports each built engine;
#   the tests      tests/engines/manifest checks that the registry, the built targets and
#                  GET /languages agree.
# Read by cmake/SandboxEngines.cmake (sandbox_engine() is defined there).
#
# sandbox_engine(<id> TARGET <library> HEADER <header> FACTORY <function>
#                DEFAULT <ALWAYS|ON|OFF> [HEAVY])
#   <id>     the language id: the directory engines/<id>/, the registry name, the `id` of
#            GET /languages (its binding is the upper-case id), a value of SANDBOX_ENGINES
#   TARGET   the static library defining the Engine
#   HEADER   its header, relative to engines/, declaring `sandbox::engines::FACTORY()`; installed
#            as include/sandbox/engines/<file name>
#   DEFAULT  ALWAYS: built in every configuration (the tests' engines, no SANDBOX_ENGINES entry);
#            ON/OFF: whether SANDBOX_ENGINES lists it by default (SANDBOX_BUILD_ENGINES=ON)
#   HEAVY    a fetched interpreter built to Wasm and through wasm2c (minutes to an hour); the
#            sanitizer presets and the helpers' builds select only the light ones
#
# The order is the registry's: sandboxd serves the engines in this order by default.
sandbox_engine(calc TARGET sandbox_engine_calc HEADER calc/calc_engine.h
               FACTORY make_calc_engine DEFAULT ALWAYS)
sandbox_engine(kv TARGET sandbox_engine_kv HEADER kv/kv_engine.h
               FACTORY make_kv_engine DEFAULT ALWAYS)
sandbox_engine(javascript TARGET sandbox_engine_javascript HEADER javascript/javascript_engine.h
               FACTORY make_javascript_engine DEFAULT ON HEAVY)
sandbox_engine(python TARGET sandbox_engine_python HEADER python/python_engine.h
               FACTORY make_python_engine DEFAULT ON HEAVY)
sandbox_engine(lua TARGET sandbox_engine_lua HEADER lua/lua_engine.h
               FACTORY make_lua_engine DEFAULT ON)
sandbox_engine(ruby TARGET sandbox_engine_ruby HEADER ruby/ruby_engine.h
               FACTORY make_ruby_engine DEFAULT ON HEAVY)
sandbox_engine(perl TARGET sandbox_engine_perl HEADER perl/perl_engine.h
               FACTORY make_perl_engine DEFAULT ON HEAVY)
