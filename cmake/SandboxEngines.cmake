# The engines of this tree, from their manifest (engines/engines.cmake), and the choice of which
# to build. Included by the top-level CMakeLists.txt before any directory, so every directory
# sees:
#   SANDBOX_ENGINE_IDS                 every engine of the manifest, in its order
#   SANDBOX_ENGINE_<id>_TARGET, _HEADER, _INCLUDES, _FACTORY, _DEFAULT (ALWAYS/TEST/ON/OFF),
#   SANDBOX_ENGINE_<id>_HEAVY (TRUE/FALSE)
#   SANDBOX_ENGINE_<id>_CONFORMANCE    engines/<id>/conformance.json (absolute), the engine's
#                                      conformance programs (engines/engines.cmake says what reads
#                                      them)
#   SANDBOX_ENGINES_SELECTED           the engines this configuration builds, in manifest order
#   SANDBOX_LANGUAGE_ENGINES_SELECTED  the same without the ALWAYS and TEST ones (what needs the
#                                      engine toolchain: binaryen, llvm-ar, ...)
# and after engines/ has been added (sandbox_engines_built()):
#   SANDBOX_ENGINES_BUILT              the selected engines, each checked to define its TARGET
#   SANDBOX_ENGINES_SHIPPED            the same without the TEST ones: what the install holds and
#                                      what sandboxd serves without --engines
#
# Cache settings: SANDBOX_BUILD_ENGINES (OFF: only the ALWAYS engines, and the TEST ones with the
# tests) and SANDBOX_ENGINES (the language engines to build, default: those the manifest marks
# ON). The TEST engines follow SANDBOX_BUILD_TESTS (top-level CMakeLists.txt), which must be
# defined before this file is included.
include_guard(GLOBAL)

set(SANDBOX_ENGINE_IDS "")
macro(sandbox_engine id)
  cmake_parse_arguments(_engine "HEAVY" "TARGET;HEADER;FACTORY;DEFAULT" "INCLUDES" ${ARGN})
  if(NOT "${id}" MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "engines/engines.cmake: engine id '${id}' must be a lower-case C identifier")
  endif()
  if(id IN_LIST SANDBOX_ENGINE_IDS)
    message(FATAL_ERROR "engines/engines.cmake: engine '${id}' is listed twice")
  endif()
  foreach(_field TARGET HEADER FACTORY DEFAULT)
    if(NOT _engine_${_field})
      message(FATAL_ERROR "engines/engines.cmake: engine '${id}' has no ${_field}")
    endif()
  endforeach()
  if(NOT _engine_DEFAULT MATCHES "^(ALWAYS|TEST|ON|OFF)$")
    message(FATAL_ERROR "engines/engines.cmake: engine '${id}': DEFAULT must be ALWAYS, TEST, ON "
            "or OFF")
  endif()
  if(_engine_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "engines/engines.cmake: engine '${id}': unknown ${_engine_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT EXISTS "${PROJECT_SOURCE_DIR}/engines/${id}/conformance.json")
    message(FATAL_ERROR "engines/engines.cmake: engine '${id}' has no engines/${id}/conformance.json "
            "(its conformance programs)")
  endif()
  list(APPEND SANDBOX_ENGINE_IDS ${id})
  set(SANDBOX_ENGINE_${id}_CONFORMANCE "${PROJECT_SOURCE_DIR}/engines/${id}/conformance.json")
  set(SANDBOX_ENGINE_${id}_TARGET ${_engine_TARGET})
  set(SANDBOX_ENGINE_${id}_HEADER ${_engine_HEADER})
  set(SANDBOX_ENGINE_${id}_INCLUDES ${_engine_INCLUDES})
  set(SANDBOX_ENGINE_${id}_FACTORY ${_engine_FACTORY})
  set(SANDBOX_ENGINE_${id}_DEFAULT ${_engine_DEFAULT})
  set(SANDBOX_ENGINE_${id}_HEAVY ${_engine_HEAVY})
endmacro()
include(${PROJECT_SOURCE_DIR}/engines/engines.cmake)

option(SANDBOX_BUILD_ENGINES "Fetch and build the Wasm language engines (Lua, QuickJS, CPython, ...)" ON)
set(_default "")
set(_optional "")
set(_heavy "")
foreach(id IN LISTS SANDBOX_ENGINE_IDS)
  if(SANDBOX_ENGINE_${id}_DEFAULT MATCHES "^(ON|OFF)$")
    list(APPEND _optional ${id})
    if(SANDBOX_ENGINE_${id}_HEAVY)
      list(APPEND _heavy ${id})
    endif()
  endif()
  if(SANDBOX_ENGINE_${id}_DEFAULT STREQUAL "ON")
    list(APPEND _default ${id})
  endif()
endforeach()
# The sanitizer presets build only Lua, which the server tests use, to stay within CI's time.
list(JOIN _optional ";" _optional_text)
set(SANDBOX_ENGINES "${_default}" CACHE STRING
    "Language engines to build when SANDBOX_BUILD_ENGINES is on (a subset of ${_optional_text})")
set_property(CACHE SANDBOX_ENGINES PROPERTY STRINGS ${_optional})
foreach(id IN LISTS SANDBOX_ENGINES)
  if(NOT id IN_LIST SANDBOX_ENGINE_IDS)
    list(JOIN SANDBOX_ENGINE_IDS ", " _known)
    message(FATAL_ERROR "SANDBOX_ENGINES names '${id}', which engines/engines.cmake does not "
            "list (engines: ${_known})")
  endif()
  # Listing a TEST engine would not build it without the tests: say so rather than ignore it.
  if(SANDBOX_ENGINE_${id}_DEFAULT STREQUAL "TEST")
    message(FATAL_ERROR "SANDBOX_ENGINES names '${id}', the tests' engine: it is built with the "
            "tests (SANDBOX_BUILD_TESTS=ON), not through SANDBOX_ENGINES")
  endif()
endforeach()

set(SANDBOX_ENGINES_SELECTED "")
set(SANDBOX_LANGUAGE_ENGINES_SELECTED "")
foreach(id IN LISTS SANDBOX_ENGINE_IDS)
  if(SANDBOX_ENGINE_${id}_DEFAULT STREQUAL "ALWAYS")
    list(APPEND SANDBOX_ENGINES_SELECTED ${id})
  elseif(SANDBOX_ENGINE_${id}_DEFAULT STREQUAL "TEST")
    # Only the tests need it (the benchmarks measure it too when it is there).
    if(SANDBOX_BUILD_TESTS)
      list(APPEND SANDBOX_ENGINES_SELECTED ${id})
    endif()
  elseif(SANDBOX_BUILD_ENGINES AND id IN_LIST SANDBOX_ENGINES)
    list(APPEND SANDBOX_ENGINES_SELECTED ${id})
    list(APPEND SANDBOX_LANGUAGE_ENGINES_SELECTED ${id})
  endif()
endforeach()
set(_skipped ${_heavy})
list(REMOVE_ITEM _skipped ${SANDBOX_ENGINES_SELECTED})
set(_selected_text "")
foreach(id IN LISTS SANDBOX_ENGINES_SELECTED)
  if(SANDBOX_ENGINE_${id}_DEFAULT STREQUAL "TEST")
    string(APPEND _selected_text " ${id} (tests only)")
  else()
    string(APPEND _selected_text " ${id}")
  endif()
endforeach()
string(STRIP "${_selected_text}" _selected_text)
if(_skipped)
  list(JOIN _skipped " " _skipped_text)
  message(STATUS "Engines: ${_selected_text} (not built: ${_skipped_text})")
else()
  message(STATUS "Engines: ${_selected_text}")
endif()

# Sets SANDBOX_ENGINES_BUILT and SANDBOX_ENGINES_SHIPPED (in the cache, so every scope sees them)
# once every selected engine's directory has been added, and stops when one did not define the
# TARGET the manifest names: the registry, the install and the tests all follow these lists.
function(sandbox_engines_built)
  set(built "")
  set(shipped "")
  foreach(id IN LISTS SANDBOX_ENGINES_SELECTED)
    if(NOT TARGET ${SANDBOX_ENGINE_${id}_TARGET})
      message(FATAL_ERROR "engines/${id}/CMakeLists.txt did not define "
              "${SANDBOX_ENGINE_${id}_TARGET}, the target engines/engines.cmake names")
    endif()
    list(APPEND built ${id})
    if(NOT SANDBOX_ENGINE_${id}_DEFAULT STREQUAL "TEST")
      list(APPEND shipped ${id})
    endif()
  endforeach()
  set(SANDBOX_ENGINES_BUILT "${built}" CACHE INTERNAL "The engines of this build (manifest order)")
  set(SANDBOX_ENGINES_SHIPPED "${shipped}" CACHE INTERNAL
      "The engines of this build but the TEST ones: installed, served by default (manifest order)")
endfunction()
