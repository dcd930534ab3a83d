# Building Wasm guests and linking Wasm modules into the program.
#
# sandbox_add_wasm_guest(<name> SOURCES <files>...
#     [REACTOR] [NOSTDLIB] [EXPORTS <symbols>...] [OPT <-O level>] [STACK_SIZE <bytes>]
#     [INCLUDE_DIRECTORIES <dirs>...] [DEFINES <NAME=VALUE>...] [COMPILE_OPTIONS <flags>...]
#     [LINK_OPTIONS <flags>...] [LIBRARIES <archives or -l flags>...] [DEPENDS <files/targets>...]
#     [OUTPUT <file.wasm>])
#   Compiles C/C++ sources with clang-19 --target=wasm32-wasi against Debian's wasi-libc through a
#   private symlink sysroot (only wasi-libc's headers and libraries, so a header wasi-libc lacks
#   can never come from the host's /usr/include), one object per source (with header
#   dependencies and ccache), then links <name>.wasm with --stack-first (a shadow-stack
#   overflow traps instead of overwriting data) and --strip-debug. The link line has no -O
#   flag: with one, clang would run whatever wasm-opt is on PATH. REACTOR builds a reactor
#   (-mexec-model=reactor, exports `_initialize`); NOSTDLIB links without libc and without an
#   entry point (exports must then be listed with EXPORTS or __attribute__((export_name))).
#   Creates the custom target <name>; its property SANDBOX_WASM_FILE holds the .wasm path.
#
# sandbox_add_wasm_module(<name> WASM <file.wasm (relative: to the current source dir) | guest target>
#     [FUEL ON|OFF] [EXCEPTIONS ON|OFF] [SPLIT <n>] [MAX_PAGES <n> | MAX_MEMORY <bytes>]
#     [PROVIDE <module[.name]>...] [OPT <-O level>] [DEPENDS <files/targets>...])
#   Runs sandbox-wasmc (fuel pass, memory cap, wasm2c, split into <n> units, data segments as a
#   blob) and compiles the result with gcc (-O2 unless OPT says otherwise; -O1 suits huge
#   modules) into a static library <name>, parallel per unit. The units are combined with
#   `ld -r` and `objcopy --localize-hidden`, so the only global symbol is
#   `sandbox_wasm_module_<name>()` (declared in the generated <name>.h, on the library's include
#   path) and several modules link into one program without clashes. Imports from modules other
#   than wasi_snapshot_preview1, sandbox and PROVIDE become stubs that trap. EXCEPTIONS ON
#   accepts Wasm exception handling (the legacy try/catch/throw that clang-19 emits, e.g. for
#   -mllvm -wasm-enable-sjlj; sandbox-wasmc --exceptions). <name> must be a C
#   identifier. A guest target given as WASM must be defined before this call.
#
# The same file serves this source tree and an installed kit (find_package(sandbox), whose
# sandboxConfig.cmake sets SANDBOX_WASM_FROM_KIT and the three variables below first):
#   SANDBOX_WASMC_COMMAND             sandbox-wasmc (the in-tree target, or the installed program)
#   SANDBOX_WASM_RUNTIME_INCLUDE_DIR  where "wasm/host_call.h" and "wasm/module_descriptor.h" are
#   SANDBOX_WASM_RUNTIME_TARGET       the runtime library generated modules link (sandbox_wasm)
# From a kit, sandbox_add_wasm_module() needs the calling project to enable C and ASM, and
# wasm2c (Debian's wabt) on the machine; sandbox_add_wasm_guest() needs clang-19 and wasi-libc.
include_guard(GLOBAL)

if(NOT SANDBOX_WASM_FROM_KIT)
  set(SANDBOX_WASMC_COMMAND sandbox-wasmc CACHE INTERNAL "")
  set(SANDBOX_WASM_RUNTIME_INCLUDE_DIR ${PROJECT_SOURCE_DIR}/src CACHE INTERNAL "")
  set(SANDBOX_WASM_RUNTIME_TARGET sandbox_wasm CACHE INTERNAL "")
endif()

find_program(SANDBOX_CLANG_WASM NAMES clang-19)
find_program(SANDBOX_WASM2C NAMES wasm2c)
find_program(SANDBOX_LD NAMES ld)
find_program(SANDBOX_OBJCOPY NAMES objcopy)

# The private sysroot: include/wasm32-wasi and lib/wasm32-wasi only.
set(SANDBOX_WASM_SYSROOT ${CMAKE_BINARY_DIR}/wasm32-wasi-sysroot)
file(MAKE_DIRECTORY ${SANDBOX_WASM_SYSROOT}/include ${SANDBOX_WASM_SYSROOT}/lib)
if(NOT SANDBOX_WASI_LIBC_PREFIX)
  set(SANDBOX_WASI_LIBC_PREFIX /usr)  # Debian's wasi-libc (an installed kit's default)
endif()
foreach(part include lib)
  if(NOT EXISTS ${SANDBOX_WASM_SYSROOT}/${part}/wasm32-wasi)
    file(CREATE_LINK ${SANDBOX_WASI_LIBC_PREFIX}/${part}/wasm32-wasi
         ${SANDBOX_WASM_SYSROOT}/${part}/wasm32-wasi SYMBOLIC)
  endif()
endforeach()

function(sandbox_add_wasm_guest name)
  cmake_parse_arguments(ARG "REACTOR;NOSTDLIB" "OPT;STACK_SIZE;OUTPUT"
    "SOURCES;EXPORTS;INCLUDE_DIRECTORIES;DEFINES;COMPILE_OPTIONS;LINK_OPTIONS;LIBRARIES;DEPENDS"
    ${ARGN})
  if(NOT SANDBOX_CLANG_WASM)
    message(FATAL_ERROR "sandbox_add_wasm_guest(${name}): clang-19 not found (apt-get install clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32)")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "sandbox_add_wasm_guest(${name}): SOURCES is required")
  endif()
  if(NOT ARG_OPT)
    set(ARG_OPT -O2)
  endif()
  if(NOT ARG_OUTPUT)
    set(ARG_OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${name}.wasm)
  endif()
  set(launcher "")
  if(CCACHE_PROGRAM)
    set(launcher ${CCACHE_PROGRAM})
  endif()
  set(target_flags --target=wasm32-wasi --sysroot=${SANDBOX_WASM_SYSROOT})
  set(cflags ${target_flags} ${ARG_OPT} -g0 -ffile-prefix-map=${PROJECT_SOURCE_DIR}=.)
  if(ARG_REACTOR)
    list(APPEND cflags -mexec-model=reactor)
  endif()
  foreach(dir ${ARG_INCLUDE_DIRECTORIES})
    list(APPEND cflags -I${dir})
  endforeach()
  foreach(def ${ARG_DEFINES})
    list(APPEND cflags -D${def})
  endforeach()
  list(APPEND cflags ${ARG_COMPILE_OPTIONS})

  set(objdir ${CMAKE_CURRENT_BINARY_DIR}/${name}.wasm-objects)
  set(objects "")
  foreach(src ${ARG_SOURCES})
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(base ${src} NAME)
    set(obj ${objdir}/${base}.o)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${objdir}
      COMMAND ${launcher} ${SANDBOX_CLANG_WASM} ${cflags} -MD -MF ${obj}.d -c ${abs} -o ${obj}
      DEPENDS ${abs} ${ARG_DEPENDS}
      DEPFILE ${obj}.d
      COMMENT "Compiling ${base} for wasm32-wasi (${name})"
      VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND objects ${obj})
  endforeach()

  set(lflags ${target_flags} -Wl,--stack-first -Wl,--strip-debug)
  if(ARG_REACTOR)
    list(APPEND lflags -mexec-model=reactor)
  endif()
  if(ARG_NOSTDLIB)
    list(APPEND lflags -nostdlib -Wl,--no-entry)
  endif()
  if(ARG_STACK_SIZE)
    list(APPEND lflags -Wl,-z,stack-size=${ARG_STACK_SIZE})
  endif()
  foreach(sym ${ARG_EXPORTS})
    list(APPEND lflags -Wl,--export=${sym})
  endforeach()
  list(APPEND lflags ${ARG_LINK_OPTIONS})
  add_custom_command(OUTPUT ${ARG_OUTPUT}
    COMMAND ${SANDBOX_CLANG_WASM} ${lflags} ${objects} ${ARG_LIBRARIES} -o ${ARG_OUTPUT}
    DEPENDS ${objects} ${ARG_DEPENDS}
    COMMENT "Linking ${name}.wasm"
    VERBATIM COMMAND_EXPAND_LISTS)
  add_custom_target(${name} ALL DEPENDS ${ARG_OUTPUT})
  set_target_properties(${name} PROPERTIES SANDBOX_WASM_FILE ${ARG_OUTPUT})
endfunction()

function(sandbox_add_wasm_module name)
  cmake_parse_arguments(ARG "" "WASM;FUEL;EXCEPTIONS;SPLIT;MAX_PAGES;MAX_MEMORY;OPT" "PROVIDE;DEPENDS"
    ${ARGN})
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "sandbox_add_wasm_module: '${name}' is not a C identifier")
  endif()
  if(NOT ARG_WASM)
    message(FATAL_ERROR "sandbox_add_wasm_module(${name}): WASM is required")
  endif()
  if(NOT SANDBOX_WASM2C)
    message(FATAL_ERROR "sandbox_add_wasm_module(${name}): wasm2c not found (apt-get install wabt)")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages OR NOT "ASM" IN_LIST languages)
    message(FATAL_ERROR "sandbox_add_wasm_module(${name}): the project must enable C and ASM "
            "(project(... LANGUAGES C CXX ASM))")
  endif()
  if(NOT ARG_SPLIT)
    set(ARG_SPLIT 1)
  endif()
  if(NOT ARG_OPT)
    set(ARG_OPT -O2)
  endif()
  if(NOT ARG_FUEL)
    set(ARG_FUEL OFF)
  endif()

  set(depends ${ARG_DEPENDS})
  if(TARGET ${ARG_WASM})
    get_target_property(wasm ${ARG_WASM} SANDBOX_WASM_FILE)
    if(NOT wasm)
      message(FATAL_ERROR "sandbox_add_wasm_module(${name}): target ${ARG_WASM} is not a Wasm guest")
    endif()
    list(APPEND depends ${ARG_WASM})
  else()
    get_filename_component(wasm ${ARG_WASM} ABSOLUTE)
  endif()

  set(flags --name ${name} --split ${ARG_SPLIT} --wasm2c ${SANDBOX_WASM2C})
  if(ARG_FUEL)
    list(APPEND flags --fuel)
  endif()
  if(ARG_EXCEPTIONS)
    list(APPEND flags --exceptions)
  endif()
  if(ARG_MAX_MEMORY)
    math(EXPR ARG_MAX_PAGES "${ARG_MAX_MEMORY} / 65536")
  endif()
  if(ARG_MAX_PAGES)
    list(APPEND flags --max-pages ${ARG_MAX_PAGES})
  endif()
  foreach(p ${ARG_PROVIDE})
    list(APPEND flags --provide ${p})
  endforeach()

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.wasmc)
  set(units ${dir}/${name}_main.c ${dir}/${name}_descriptor.c ${dir}/${name}_stubs.c
            ${dir}/${name}_data.S)
  math(EXPR last "${ARG_SPLIT} - 1")
  foreach(i RANGE ${last})
    list(APPEND units ${dir}/${name}_part${i}.c)
  endforeach()
  set(generated ${units} ${dir}/${name}_common.h ${dir}/${name}_w2c.h ${dir}/${name}.h
                ${dir}/${name}_data.bin ${dir}/${name}.wasm)
  add_custom_command(OUTPUT ${generated}
    COMMAND ${SANDBOX_WASMC_COMMAND} ${wasm} --out-dir ${dir} ${flags}
    DEPENDS ${SANDBOX_WASMC_COMMAND} ${wasm} ${depends}
    COMMENT "sandbox-wasmc ${name} (fuel: ${ARG_FUEL}, split: ${ARG_SPLIT})"
    VERBATIM)

  # Generated code: its own flags, no warnings, no sanitizers, no debug info.
  add_library(${name}_units OBJECT ${units})
  target_include_directories(${name}_units PRIVATE ${dir} ${SANDBOX_WASM_RUNTIME_INCLUDE_DIR})
  target_compile_options(${name}_units PRIVATE ${ARG_OPT} -g0 -w -fvisibility=hidden
    -fstack-clash-protection -fno-sanitize=all)
  set_target_properties(${name}_units PROPERTIES SANDBOX_NO_SANITIZERS TRUE)
  set_source_files_properties(${dir}/${name}_data.S PROPERTIES OBJECT_DEPENDS ${dir}/${name}_data.bin)

  set(combined ${CMAKE_CURRENT_BINARY_DIR}/${name}_module.o)
  add_custom_command(OUTPUT ${combined}
    COMMAND ${SANDBOX_LD} -r -o ${combined} $<TARGET_OBJECTS:${name}_units>
    COMMAND ${SANDBOX_OBJCOPY} --localize-hidden ${combined}
    DEPENDS ${name}_units $<TARGET_OBJECTS:${name}_units>
    COMMENT "Combining ${name} into one object (hidden symbols made local)"
    VERBATIM COMMAND_EXPAND_LISTS)
  set_source_files_properties(${combined} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${name} STATIC ${combined})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  target_include_directories(${name} INTERFACE ${dir})
  target_link_libraries(${name} INTERFACE ${SANDBOX_WASM_RUNTIME_TARGET})
  set_target_properties(${name} PROPERTIES SANDBOX_WASM_FILE ${dir}/${name}.wasm)
endfunction()
