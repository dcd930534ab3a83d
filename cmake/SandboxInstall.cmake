# The installable kit: `cmake --install <build> --prefix <dir>` (or the .deb built by CPack) puts
# in <dir>
#
#   include/sandbox/*.h                   the public API (version.h generated from project(VERSION))
#   include/sandbox/engines/*_engine.h    the built-in engines' constructors (make_lua_engine, ...;
#                                         not the tests' kv)
#   include/sandbox/guest/sandbox_guest.h the embedded ABI, guest side (C, for wasm32-wasi guests)
#   include/sandbox/private/wasm/*.h      what sandbox-wasmc's generated C compiles against
#   lib/sandbox/lib*.a                    the static libraries
#   lib/cmake/sandbox/                    the package: find_package(sandbox CONFIG REQUIRED)
#   bin/                                  sandbox-wasmc, sandbox, sandboxd, sandbox-runtime
#   share/doc/sandbox-workers/            LICENSE, THIRD_PARTY_NOTICES (cmake/SandboxNotices.cmake),
#                                         copyright (both, for the .deb) and the engine author's guide
#
# An outside project then links sandbox::interpreter (and sandbox::testing, sandbox::embedded,
# sandbox::client, sandbox::engine_<language>) and calls sandbox_add_wasm_module() /
# sandbox_add_wasm_guest() from SandboxWasm.cmake. Components: `kit` (headers, core libraries,
# package files, sandbox-wasmc), `engines` (the built-in engine libraries), `tools` (the servers
# and the CLI).
#
# The package version is the project's (0.x: the Engine contract may still change between minor
# versions, so a request for 0.1 accepts only 0.1.*); the wire protocol is versioned separately
# (sandbox_PROTOCOL_VERSION, from kInterpreterProtocolVersion in include/sandbox/protocol.h).
#
# Included at the end of the top-level CMakeLists.txt, once every target exists.
include_guard(GLOBAL)
# The documentation (the engine author's guide, the licences) under the package's name, where
# Debian looks for a package's copyright file; GNUInstallDirs would name the CMake project
# (sandbox_workers). -DCMAKE_INSTALL_DOCDIR=... still chooses another.
if(NOT CMAKE_INSTALL_DOCDIR)
  set(CMAKE_INSTALL_DOCDIR share/doc/sandbox-workers)
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SANDBOX_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/sandbox)
set(SANDBOX_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR}/sandbox)

# The targets' include directories name the source and build trees; an installed target must
# name only the installed include directory. Every path an exported target carries becomes
# $<BUILD_INTERFACE:...> (so the in-tree build is unchanged), and the installed include
# directory is added.
function(_sandbox_export_include_dirs target)
  get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  set(out "")
  if(dirs)
    foreach(dir IN LISTS dirs)
      if(dir MATCHES "^\\$<")
        list(APPEND out "${dir}")
      else()
        list(APPEND out "$<BUILD_INTERFACE:${dir}>")
      endif()
    endforeach()
  endif()
  list(APPEND out "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${out}")
endfunction()

# The project's own static libraries `target` links, directly or not (imported targets and
# generator expressions aside), appended to `out_var`.
function(_sandbox_linked_targets target out_var)
  set(seen ${${out_var}})
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue t)
    get_target_property(libs ${t} LINK_LIBRARIES)
    get_target_property(ilibs ${t} INTERFACE_LINK_LIBRARIES)
    foreach(lib IN LISTS libs ilibs)
      if(lib AND TARGET ${lib} AND NOT lib IN_LIST seen)
        get_target_property(imported ${lib} IMPORTED)
        get_target_property(type ${lib} TYPE)
        get_target_property(aliased ${lib} ALIASED_TARGET)
        if(aliased)
          set(lib ${aliased})
        endif()
        if(NOT imported AND type STREQUAL "STATIC_LIBRARY" AND NOT lib IN_LIST seen)
          list(APPEND seen ${lib})
          list(APPEND queue ${lib})
        endif()
      endif()
    endforeach()
  endwhile()
  set(${out_var} ${seen} PARENT_SCOPE)
endfunction()

# --- the kit: core libraries, headers, sandbox-wasmc --------------------------------------------
set(_sandbox_core_areas version base fast_hash protocol http workspace storage snapshot stored_rows wasm wasi embedded
                        interpreter testing client isolation workers)
set(_sandbox_core "")
foreach(area IN LISTS _sandbox_core_areas)
  if(TARGET sandbox_${area})
    list(APPEND _sandbox_core sandbox_${area})
    set_target_properties(sandbox_${area} PROPERTIES EXPORT_NAME ${area})
    _sandbox_export_include_dirs(sandbox_${area})
  endif()
endforeach()
install(TARGETS ${_sandbox_core} EXPORT sandboxTargets
  ARCHIVE DESTINATION ${SANDBOX_INSTALL_LIBDIR} COMPONENT kit)

if(TARGET sandbox-wasmc)
  set_target_properties(sandbox-wasmc PROPERTIES EXPORT_NAME wasmc)
  install(TARGETS sandbox-wasmc EXPORT sandboxTargets
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT kit)
endif()
install(EXPORT sandboxTargets NAMESPACE sandbox:: DESTINATION ${SANDBOX_INSTALL_CMAKEDIR}
  COMPONENT kit)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/sandbox DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT kit FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/sandbox/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sandbox COMPONENT kit)
# What the C that sandbox-wasmc generates includes besides wasm-rt.h (Debian's wabt).
install(FILES ${PROJECT_SOURCE_DIR}/src/wasm/host_call.h ${PROJECT_SOURCE_DIR}/src/wasm/module_descriptor.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sandbox/private/wasm COMPONENT kit)
install(FILES ${PROJECT_SOURCE_DIR}/engines/common/sandbox_guest.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sandbox/guest COMPONENT kit)

# --- the built-in engines ------------------------------------------------------------------------
# Each engine library with what it links that is not in the kit (its compiled Wasm module),
# exported as sandbox::engine_<language>, sandbox::<language>_guest, ...
set(_sandbox_engine_targets "")
set(_sandbox_engine_languages "")
# The engines are those of the manifest this build has, without the tests' own engines (DEFAULT
# TEST: SANDBOX_ENGINES_SHIPPED, cmake/SandboxEngines.cmake), each with the header and target
# the manifest names. A test engine is neither installed nor exported, so no installed kit or
# package offers it.
foreach(language IN LISTS SANDBOX_ENGINES_SHIPPED)
  set(target ${SANDBOX_ENGINE_${language}_TARGET})
  list(APPEND _sandbox_engine_languages ${language})
  set_target_properties(${target} PROPERTIES EXPORT_NAME engine_${language})
  # With the headers it includes, so that the installed one compiles.
  set(_sandbox_headers ${SANDBOX_ENGINE_${language}_HEADER} ${SANDBOX_ENGINE_${language}_INCLUDES})
  list(TRANSFORM _sandbox_headers PREPEND ${PROJECT_SOURCE_DIR}/engines/)
  install(FILES ${_sandbox_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sandbox/engines
    COMPONENT engines)
  set(linked ${_sandbox_core} ${_sandbox_engine_targets})
  _sandbox_linked_targets(${target} linked)
  list(APPEND _sandbox_engine_targets ${target})
  foreach(t IN LISTS linked)
    if(NOT t IN_LIST _sandbox_core AND NOT t IN_LIST _sandbox_engine_targets)
      list(APPEND _sandbox_engine_targets ${t})
    endif()
  endforeach()
endforeach()
foreach(t IN LISTS _sandbox_engine_targets)
  _sandbox_export_include_dirs(${t})
  get_target_property(export_name ${t} EXPORT_NAME)
  if(NOT export_name)
    string(REGEX REPLACE "^sandbox_" "" export_name ${t})
    set_target_properties(${t} PROPERTIES EXPORT_NAME ${export_name})
  endif()
endforeach()

# The imported targets an export set names must be found by sandboxConfig.cmake, which knows
# these packages; OpenSSL only when a target of that set links it.
function(_sandbox_check_dependencies out_openssl)
  set(openssl FALSE)
  foreach(t IN LISTS ARGN)
    get_target_property(libs ${t} LINK_LIBRARIES)
    get_target_property(ilibs ${t} INTERFACE_LINK_LIBRARIES)
    foreach(lib IN LISTS libs ilibs)
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" lib "${lib}")
      if(NOT lib OR NOT TARGET ${lib})
        continue()
      endif()
      get_target_property(imported ${lib} IMPORTED)
      if(NOT imported)
        continue()
      endif()
      if(lib MATCHES "^OpenSSL::")
        set(openssl TRUE)
      elseif(NOT lib MATCHES "^(Boost|spdlog|fmt|SQLite|zstd|Threads)::" AND
             NOT lib STREQUAL "PkgConfig::SECCOMP")
        message(WARNING "${t} links ${lib}, which cmake/sandboxConfig.cmake.in does not find: "
                "an installed kit would not link; add its find_dependency()")
      endif()
    endforeach()
  endforeach()
  set(${out_openssl} ${openssl} PARENT_SCOPE)
endfunction()
_sandbox_check_dependencies(_sandbox_kit_needs_openssl ${_sandbox_core})
_sandbox_check_dependencies(_sandbox_engines_need_openssl ${_sandbox_engine_targets})
if(_sandbox_engine_targets)
  install(TARGETS ${_sandbox_engine_targets} EXPORT sandboxEnginesTargets
    ARCHIVE DESTINATION ${SANDBOX_INSTALL_LIBDIR} COMPONENT engines)
  install(EXPORT sandboxEnginesTargets NAMESPACE sandbox:: DESTINATION ${SANDBOX_INSTALL_CMAKEDIR}
    COMPONENT engines)
endif()

# --- the tools -----------------------------------------------------------------------------------
foreach(tool sandbox sandboxd sandbox-runtime)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/docs/build-your-own-runtime.md
  ${PROJECT_SOURCE_DIR}/docs/wasmify-abi.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT kit OPTIONAL)
# The licences (docs/redistribution.md).
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${SANDBOX_THIRD_PARTY_NOTICES} ${SANDBOX_COPYRIGHT_FILE}
  DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT kit)

# --- the package files ---------------------------------------------------------------------------
file(STRINGS ${PROJECT_SOURCE_DIR}/include/sandbox/protocol.h _protocol_line
  REGEX "kInterpreterProtocolVersion = [0-9]+")
string(REGEX MATCH "kInterpreterProtocolVersion = ([0-9]+)" _protocol_match "${_protocol_line}")
set(SANDBOX_PROTOCOL_VERSION "${CMAKE_MATCH_1}")
if(NOT SANDBOX_PROTOCOL_VERSION)
  message(FATAL_ERROR "kInterpreterProtocolVersion not found in include/sandbox/protocol.h")
endif()
set(SANDBOX_ENGINE_LANGUAGES "${_sandbox_engine_languages}")
set(SANDBOX_KIT_NEEDS_OPENSSL ${_sandbox_kit_needs_openssl})
set(SANDBOX_ENGINES_NEED_OPENSSL ${_sandbox_engines_need_openssl})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/sandboxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/sandboxConfig.cmake
  INSTALL_DESTINATION ${SANDBOX_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
# 0.x: a minor release may change the Engine contract.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sandboxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sandboxConfig.cmake ${PROJECT_BINARY_DIR}/sandboxConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/SandboxWasm.cmake
  DESTINATION ${SANDBOX_INSTALL_CMAKEDIR} COMPONENT kit)
