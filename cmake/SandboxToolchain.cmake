# Configure-time checks of the tools the Wasm pipeline runs, so that a missing or wrong tool
# stops configure with the Debian package to install, instead of failing a build step later.
# Included by the top-level CMakeLists.txt after cmake/SandboxEngines.cmake (the engine
# toolchain is checked only when a language engine is selected).
#
# Always (the kv engine and the test guests are Wasm):
#   SANDBOX_CLANG_WASM  clang-19 (package clang-19), its wasm32 builtins
#                       (libclang-rt-19-dev-wasm32) and wasm-ld (lld-19)
#   wasi-libc           ${SANDBOX_WASI_LIBC_PREFIX}/{include,lib}/wasm32-wasi (package wasi-libc)
#   SANDBOX_WASM2C      wasm2c of wabt ${SANDBOX_WASM2C_VERSION} exactly: sandbox-wasmc parses its
#                       output (the shapes it expects are those of that version)
#   libedit            histedit.h and libedit (package libedit-dev): `sandbox repl`'s line editing,
#                      as the imported target Sandbox::libedit
# With a language engine (SANDBOX_LANGUAGE_ENGINES_SELECTED):
#   SANDBOX_WASM_OPT    binaryen's wasm-opt
#   SANDBOX_WASI_AR, SANDBOX_WASI_RANLIB  llvm-ar, llvm-ranlib (llvm-19)
#
# Each variable may be set on the command line to use another tool; a path that does not exist
# (a package removed since the first configure) is reported like a missing tool.
include_guard(GLOBAL)

set(SANDBOX_WASM2C_VERSION 1.0.32)
set(SANDBOX_WASI_LIBC_PREFIX /usr CACHE PATH
    "Prefix of wasi-libc (its include/wasm32-wasi and lib/wasm32-wasi)")

set(_sandbox_toolchain_problems "")
set(_sandbox_toolchain_packages "")
# One problem: `package` is the Debian package that fixes it; the other arguments, concatenated,
# say what is wrong (no semicolons: they would split the list).
function(_sandbox_toolchain_problem package)
  string(CONCAT what ${ARGN})
  string(APPEND _sandbox_toolchain_problems "\n  - ${what}: install the Debian package ${package}")
  set(_sandbox_toolchain_problems "${_sandbox_toolchain_problems}" PARENT_SCOPE)
  list(APPEND _sandbox_toolchain_packages ${package})
  set(_sandbox_toolchain_packages "${_sandbox_toolchain_packages}" PARENT_SCOPE)
endfunction()

# Finds program `var` (NAMES ...) and records a problem naming `package` when it is missing.
# Sets `<var>_OK` in the caller.
macro(_sandbox_require_program var package)
  find_program(${var} NAMES ${ARGN})
  set(${var}_OK FALSE)
  if(NOT ${var})
    list(GET ARGV 2 _first_name)
    _sandbox_toolchain_problem(${package} "${_first_name} not found")
  elseif(NOT EXISTS "${${var}}")
    _sandbox_toolchain_problem(${package} "${${var}} (${var}) does not exist")
  else()
    set(${var}_OK TRUE)
  endif()
endmacro()

# clang-19, which compiles every guest; its wasm32 builtins and linker.
_sandbox_require_program(SANDBOX_CLANG_WASM clang-19 clang-19)
if(SANDBOX_CLANG_WASM_OK)
  execute_process(COMMAND "${SANDBOX_CLANG_WASM}" --version OUTPUT_VARIABLE _out
                  ERROR_QUIET RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0 OR NOT _out MATCHES "clang version 19\\.")
    string(REGEX MATCH "[^\n]*" _first_line "${_out}")
    _sandbox_toolchain_problem(clang-19 "${SANDBOX_CLANG_WASM} is not clang 19 ('${_first_line}')")
  else()
    execute_process(COMMAND "${SANDBOX_CLANG_WASM}" -print-resource-dir
                    OUTPUT_VARIABLE _resource_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT EXISTS "${_resource_dir}/lib/wasi/libclang_rt.builtins-wasm32.a")
      _sandbox_toolchain_problem(libclang-rt-19-dev-wasm32 "clang-19's wasm32 builtins "
        "(${_resource_dir}/lib/wasi/libclang_rt.builtins-wasm32.a) are missing")
    endif()
  endif()
endif()
_sandbox_require_program(SANDBOX_WASM_LD lld-19 wasm-ld-19 wasm-ld)

# wasi-libc, the guests' C library.
if(NOT EXISTS "${SANDBOX_WASI_LIBC_PREFIX}/include/wasm32-wasi/stdio.h" OR
   NOT EXISTS "${SANDBOX_WASI_LIBC_PREFIX}/lib/wasm32-wasi/libc.a")
  _sandbox_toolchain_problem(wasi-libc "wasi-libc not found in ${SANDBOX_WASI_LIBC_PREFIX} "
    "(include/wasm32-wasi/stdio.h, lib/wasm32-wasi/libc.a)")
endif()

# wasm2c, whose C output sandbox-wasmc rewrites: the exact version it was written against.
_sandbox_require_program(SANDBOX_WASM2C wabt wasm2c)
if(SANDBOX_WASM2C_OK)
  execute_process(COMMAND "${SANDBOX_WASM2C}" --version OUTPUT_VARIABLE _out
                  ERROR_QUIET RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0 OR NOT _out STREQUAL SANDBOX_WASM2C_VERSION)
    _sandbox_toolchain_problem("wabt (${SANDBOX_WASM2C_VERSION})" "${SANDBOX_WASM2C} is version "
      "'${_out}', but sandbox-wasmc parses the output of wasm2c ${SANDBOX_WASM2C_VERSION} only "
      "(Debian 12's)")
  endif()
endif()

# libedit, the REPL's line editor and history.
find_path(SANDBOX_LIBEDIT_INCLUDE_DIR histedit.h)
find_library(SANDBOX_LIBEDIT_LIBRARY edit)
if(NOT SANDBOX_LIBEDIT_INCLUDE_DIR OR NOT SANDBOX_LIBEDIT_LIBRARY)
  _sandbox_toolchain_problem(libedit-dev "libedit (histedit.h, libedit.so) not found")
elseif(NOT TARGET Sandbox::libedit)
  add_library(Sandbox::libedit UNKNOWN IMPORTED GLOBAL)
  set_target_properties(Sandbox::libedit PROPERTIES IMPORTED_LOCATION "${SANDBOX_LIBEDIT_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${SANDBOX_LIBEDIT_INCLUDE_DIR}")
endif()

# The language engines' extra tools.
if(SANDBOX_LANGUAGE_ENGINES_SELECTED)
  _sandbox_require_program(SANDBOX_WASM_OPT binaryen wasm-opt)
  _sandbox_require_program(SANDBOX_WASI_AR llvm-19 llvm-ar-19 llvm-ar)
  _sandbox_require_program(SANDBOX_WASI_RANLIB llvm-19 llvm-ranlib-19 llvm-ranlib)
endif()

if(_sandbox_toolchain_problems)
  list(REMOVE_DUPLICATES _sandbox_toolchain_packages)
  string(REGEX REPLACE " \\([^)]*\\)" "" _packages "${_sandbox_toolchain_packages}")
  set(_hint "")
  if("binaryen" IN_LIST _packages OR "llvm-19" IN_LIST _packages)
    string(CONCAT _hint " (binaryen and llvm-19 are needed only by the language engines: "
           "-DSANDBOX_BUILD_ENGINES=OFF builds without them)")
  endif()
  list(JOIN _packages " " _packages)
  message(FATAL_ERROR "The Wasm toolchain is incomplete:${_sandbox_toolchain_problems}\n"
          "Install with: apt-get install ${_packages} (or run scripts/bootstrap.sh as root)"
          "${_hint}.")
endif()
