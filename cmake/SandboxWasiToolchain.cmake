# Compiling language engines (C) to wasm32-wasi reactors, with clang-19 and Debian's wasi-libc.
#
# The host build uses gcc; guest code is compiled by custom commands, so both toolchains live in
# one CMake project. Objects go through ccache when it is installed.
#
#   sandbox_wasi_compile(<objects_var> OBJECT_DIR <dir> SOURCES <files>... [FLAGS <flags>...]
#                        [DEPENDS <files or stamps>...])
#     One object per source (the name keeps the source's basename; basenames must be unique).
#   sandbox_wasi_link(OUTPUT <file.wasm> OBJECTS <files>... [FLAGS <flags>...] [LIBS <libs>...]
#                     [MAX_MEMORY <bytes>])
#     Links a reactor (-mexec-model=reactor, shadow stack first so an overflow traps, memory
#     capped at MAX_MEMORY, by default SANDBOX_WASM_MAX_MEMORY). No -O on the link line: clang
#     would then run wasm-opt implicitly and strip the name section later passes rely on.
#   sandbox_wasm_opt(INPUT <in.wasm> OUTPUT <out.wasm> [FLAGS <passes>...])
#     Runs binaryen's wasm-opt; the result is stripped of debug information.
#
# Variables: SANDBOX_WASI_CC, SANDBOX_WASI_SYSROOT (a private sysroot of symlinks to the
# wasi-libc headers and libraries only, so a header wasi-libc lacks can never fall back to the
# host's /usr/include), SANDBOX_WASI_CFLAGS (target, sysroot, -O2, reproducible paths),
# SANDBOX_WASM_OPT, SANDBOX_WASI_AR, SANDBOX_WASM_MAX_MEMORY (bytes).

include_guard(GLOBAL)

# SANDBOX_BUILD_ENGINES and SANDBOX_ENGINES (which engines) are in cmake/SandboxEngines.cmake;
# the tools were checked by cmake/SandboxToolchain.cmake (each named with its Debian package).
if(NOT SANDBOX_BUILD_ENGINES)
  return()
endif()

set(SANDBOX_WASM_MAX_MEMORY 67108864 CACHE STRING
    "Maximum linear memory of the engine modules in bytes (64 MiB)")
set(SANDBOX_WASI_CC "${SANDBOX_CLANG_WASM}" CACHE INTERNAL "")

# CACHE INTERNAL: the settings are global, while include_guard() runs this file only in the first
# directory that includes it.
set(SANDBOX_WASI_SYSROOT "${CMAKE_BINARY_DIR}/wasi-sysroot" CACHE INTERNAL "")
file(MAKE_DIRECTORY "${SANDBOX_WASI_SYSROOT}/include" "${SANDBOX_WASI_SYSROOT}/lib")
foreach(part include lib)
  if(NOT EXISTS "${SANDBOX_WASI_SYSROOT}/${part}/wasm32-wasi")
    file(CREATE_LINK "${SANDBOX_WASI_LIBC_PREFIX}/${part}/wasm32-wasi"
         "${SANDBOX_WASI_SYSROOT}/${part}/wasm32-wasi" SYMBOLIC)
  endif()
endforeach()

set(SANDBOX_WASI_CFLAGS
  --target=wasm32-wasi "--sysroot=${SANDBOX_WASI_SYSROOT}" -O2
  "-ffile-prefix-map=${CMAKE_BINARY_DIR}=/build" "-ffile-prefix-map=${CMAKE_SOURCE_DIR}=/src"
  CACHE INTERNAL "")
set(SANDBOX_WASI_LAUNCHER "${CCACHE_PROGRAM}" CACHE INTERNAL "")

function(sandbox_wasi_compile objects_var)
  cmake_parse_arguments(ARG "" "OBJECT_DIR" "SOURCES;FLAGS;DEPENDS" ${ARGN})
  if(NOT ARG_OBJECT_DIR OR NOT ARG_SOURCES)
    message(FATAL_ERROR "sandbox_wasi_compile: OBJECT_DIR and SOURCES are required")
  endif()
  set(objects "")
  foreach(src ${ARG_SOURCES})
    get_filename_component(base "${src}" NAME)
    set(obj "${ARG_OBJECT_DIR}/${base}.o")
    file(RELATIVE_PATH rel "${CMAKE_BINARY_DIR}" "${obj}")
    add_custom_command(
      OUTPUT "${obj}"
      COMMAND ${SANDBOX_WASI_LAUNCHER} "${SANDBOX_WASI_CC}" ${SANDBOX_WASI_CFLAGS} ${ARG_FLAGS}
              -MD -MF "${obj}.d" -c "${src}" -o "${obj}"
      DEPENDS "${src}" ${ARG_DEPENDS}
      DEPFILE "${obj}.d"
      COMMENT "Building wasm32-wasi object ${rel}"
      VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND objects "${obj}")
  endforeach()
  set(${objects_var} "${objects}" PARENT_SCOPE)
endfunction()

function(sandbox_wasi_link)
  cmake_parse_arguments(ARG "" "OUTPUT;MAX_MEMORY" "OBJECTS;FLAGS;LIBS;DEPENDS" ${ARGN})
  if(NOT ARG_OUTPUT OR NOT ARG_OBJECTS)
    message(FATAL_ERROR "sandbox_wasi_link: OUTPUT and OBJECTS are required")
  endif()
  if(NOT ARG_MAX_MEMORY)
    set(ARG_MAX_MEMORY ${SANDBOX_WASM_MAX_MEMORY})
  endif()
  file(RELATIVE_PATH rel "${CMAKE_BINARY_DIR}" "${ARG_OUTPUT}")
  add_custom_command(
    OUTPUT "${ARG_OUTPUT}"
    COMMAND "${SANDBOX_WASI_CC}" --target=wasm32-wasi "--sysroot=${SANDBOX_WASI_SYSROOT}"
            -mexec-model=reactor -Wl,--stack-first
            "-Wl,--max-memory=${ARG_MAX_MEMORY}" ${ARG_FLAGS}
            ${ARG_OBJECTS} ${ARG_LIBS} -o "${ARG_OUTPUT}"
    DEPENDS ${ARG_OBJECTS} ${ARG_DEPENDS}
    COMMENT "Linking wasm32-wasi reactor ${rel}"
    VERBATIM COMMAND_EXPAND_LISTS)
endfunction()

function(sandbox_wasm_opt)
  cmake_parse_arguments(ARG "" "INPUT;OUTPUT" "FLAGS" ${ARGN})
  if(NOT ARG_INPUT OR NOT ARG_OUTPUT)
    message(FATAL_ERROR "sandbox_wasm_opt: INPUT and OUTPUT are required")
  endif()
  file(RELATIVE_PATH rel "${CMAKE_BINARY_DIR}" "${ARG_OUTPUT}")
  add_custom_command(
    OUTPUT "${ARG_OUTPUT}"
    COMMAND "${SANDBOX_WASM_OPT}" "${ARG_INPUT}" ${ARG_FLAGS} --strip-debug -o "${ARG_OUTPUT}"
    DEPENDS "${ARG_INPUT}"
    COMMENT "Optimising ${rel} (wasm-opt)"
    VERBATIM COMMAND_EXPAND_LISTS)
endfunction()
