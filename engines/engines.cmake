# The engine manifest: every engine of this tree, written once. It drives
#   the build      engines/CMakeLists.txt adds the directory of each selected engine and checks
#                  that it defined TARGET;
#   the registry   engines/builtin_engines.cc.in is generated from it (builtin_engines(): what
#                  sandbox-runtime --engine and sandboxd --engines find; default_engines(): what
#                  sandboxd serves without --engines, so GET /languages);
#   the install    cmake/SandboxInstall.cmake installs and exports each built engine but the
#                  TEST ones;
#   sandbox init   the languages `sandbox init LANGUAGE` offers are the engines but the TEST
#                  ones, each with the programs of its engines/<id>/conformance.json (generated
#                  at build time: src/scaffold/embed_languages.cmake);
#   the tests      tests/engines/suite runs, for every engine built, the conformance suite with
#                  those programs, the program corpus tests/engines/<id>/corpus.json and the
#                  checks of tests/engines/<id>/checks.json;
#                  tests/engines/manifest checks that the registry, the built targets,
#                  GET /languages and the languages of `sandbox init` agree.
# Read by cmake/SandboxEngines.cmake (sandbox_engine() is defined there).
#
# sandbox_engine(<id> TARGET <library> HEADER <header> [INCLUDES <header>...] FACTORY <function>
#                DEFAULT <ALWAYS|TEST|ON|OFF> [HEAVY])
#   <id>     the language id: the directory engines/<id>/, the registry name, the `id` of
#            GET /languages (its binding is the upper-case id), a value of SANDBOX_ENGINES
#   TARGET   the static library defining the Engine
#   HEADER   its header, relative to engines/, declaring `sandbox::engines::FACTORY()`; installed
#            as include/sandbox/engines/<file name>
#   INCLUDES the headers HEADER includes with "..." (relative to engines/), installed beside it
#   DEFAULT  ALWAYS: built in every configuration (no SANDBOX_ENGINES entry), installed and
#            served by default;
#            TEST: the tests' own engine, not a language for users: built only with the tests
#            (SANDBOX_BUILD_TESTS, whatever SANDBOX_ENGINES says), never installed, and in the
#            registry without being served by default (only `sandboxd --engines <id>`, or
#            `sandbox-runtime --engine <id>`, serves it);
#            ON/OFF: whether SANDBOX_ENGINES lists it by default (SANDBOX_BUILD_ENGINES=ON)
#   HEAVY    a fetched interpreter built to Wasm and through wasm2c (minutes to an hour); the
#            sanitizer presets and the helpers' builds select only the light ones
# Every engine also has engines/<id>/conformance.json, its conformance programs in the format of
# the conformance.json `sandbox init` writes
# (docs/build-your-own-runtime.md#running-the-conformance-suite): a program that yields
# expectResultText, one that fails with a guest error, and, for an engine with sessions, a
# stateful define/use pair (null without sessions).
#
# The order is the registry's: sandboxd serves the engines in this order (those it serves by
# default: all but the TEST ones).
sandbox_engine(calc TARGET sandbox_engine_calc HEADER calc/calc_engine.h
               FACTORY make_calc_engine DEFAULT ALWAYS)
# kv: a tiny Wasm language the tests drive sessions, snapshots, the workspace and the limits
# with; nothing a user should meet in a default server or an installed kit.
sandbox_engine(kv TARGET sandbox_engine_kv HEADER kv/kv_engine.h
               FACTORY make_kv_engine DEFAULT TEST)
# wkv: the kv-like test guest of tests/guests/wasmify behind the kit's wasmify driver
# (docs/wasmify-abi.md); a test engine like kv.
sandbox_engine(wkv TARGET sandbox_engine_wkv HEADER wkv/wkv_engine.h
               FACTORY make_wkv_engine DEFAULT TEST)
sandbox_engine(javascript TARGET sandbox_engine_javascript HEADER javascript/javascript_engine.h
               FACTORY make_javascript_engine DEFAULT ON HEAVY)
sandbox_engine(python TARGET sandbox_engine_python HEADER python/python_engine.h
               FACTORY make_python_engine DEFAULT ON HEAVY)
sandbox_engine(lua TARGET sandbox_engine_lua HEADER lua/lua_engine.h
               INCLUDES lua/lua_stack_limit.h FACTORY make_lua_engine DEFAULT ON)
sandbox_engine(ruby TARGET sandbox_engine_ruby HEADER ruby/ruby_engine.h
               FACTORY make_ruby_engine DEFAULT ON HEAVY)
sandbox_engine(perl TARGET sandbox_engine_perl HEADER perl/perl_engine.h
               FACTORY make_perl_engine DEFAULT ON HEAVY)
