# Third-party notices (docs/redistribution.md#third-party-notices). Every component the build
# fetches and ships (compiled into a program, or bundled into an embedded script) registers its
# licence here; ${PROJECT_BINARY_DIR}/THIRD_PARTY_NOTICES is generated from the registrations at
# build time, once the fetches have run: a list of the components, then one section per
# component with its licence files verbatim.
#
#   sandbox_third_party_notice(NAME <component> VERSION <version> ORIGIN <text> DIR <dir>
#                              [FILES <paths relative to DIR>...] [NOTE <text>]
#                              DEPENDS <files or targets>...)
#     One component, whose unpacked tree is DIR once DEPENDS (the fetch's stamp) is built.
#     FILES: its licence files (e.g. debian/copyright). Without FILES, the licence files found
#     in DIR at build time (names starting LICENSE, LICENCE, COPYING or NOTICE, any case), else
#     the "license" field of DIR/package.json. A component without any of these stops the
#     build. ORIGIN says where it came from; NOTE is printed under its heading.
#   sandbox_third_party_npm_notices(LOCK <package-lock.json> NODE_MODULES <dir> ORIGIN <text>
#                                   DEPENDS <files or targets>...)
#     Every package LOCK installs into NODE_MODULES except devDependencies (build tools that
#     ship nothing), each as a component without FILES.
#   sandbox_third_party_not_shipped(DIR <dir> WHY <text>)
#     A fetch into DIR of which nothing reaches what the build ships (a test's tools): no
#     notice, but on record, so that tests/redistribution can tell it from a forgotten one.
#   sandbox_installed_package_notice(NAME <component> FILE <one of its files here> NOTE <text>)
#     A component compiled in from this machine instead of fetched (a header-only library, the
#     guests' C library): the Debian package that installed FILE, at its installed version,
#     with its /usr/share/doc/<package>/copyright. A FILE that no Debian package installed (a
#     tool given on the command line) gets a warning and no notice: register its licence with
#     sandbox_third_party_notice(). A FILE that does not exist is left to the toolchain checks.
#
# The fetch functions of cmake/SandboxFetch.cmake register what they fetch themselves, so a new
# sandbox_fetch_*() call needs nothing more, and a new fetch function registers with one call
# of the above. sandbox_write_third_party_notices(), called once at the end of the top-level
# CMakeLists.txt, writes the registrations to SANDBOX_THIRD_PARTY_MANIFEST (read by the
# generator, cmake/SandboxNoticesGenerate.cmake, and by tests/redistribution) and adds the target
# sandbox_third_party_notices, which writes SANDBOX_THIRD_PARTY_NOTICES and
# SANDBOX_COPYRIGHT_FILE (the project's LICENSE, then the notices: the .deb's copyright file).
include_guard(GLOBAL)

set(SANDBOX_THIRD_PARTY_NOTICES "${PROJECT_BINARY_DIR}/THIRD_PARTY_NOTICES")
set(SANDBOX_COPYRIGHT_FILE "${PROJECT_BINARY_DIR}/copyright")
set(SANDBOX_THIRD_PARTY_MANIFEST "${PROJECT_BINARY_DIR}/third_party_notices.json")
set_property(GLOBAL PROPERTY SANDBOX_NOTICES_ENTRIES "[]")
set_property(GLOBAL PROPERTY SANDBOX_NOTICES_DEPENDS "")
set_property(GLOBAL PROPERTY SANDBOX_NOTICES_WRITTEN FALSE)

# `value` as a JSON string literal.
function(_sandbox_json_quote out_var value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  string(REPLACE "\n" "\\n" value "${value}")
  string(REPLACE "\t" "\\t" value "${value}")
  set(${out_var} "\"${value}\"" PARENT_SCOPE)
endfunction()

# Sets key `key` of the JSON object in `json_var` to the string `value`.
function(_sandbox_json_set_string json_var key value)
  _sandbox_json_quote(quoted "${value}")
  string(JSON json SET "${${json_var}}" "${key}" "${quoted}")
  set(${json_var} "${json}" PARENT_SCOPE)
endfunction()

# Appends the manifest entry `entry` (a JSON object).
function(_sandbox_notices_add entry)
  get_property(written GLOBAL PROPERTY SANDBOX_NOTICES_WRITTEN)
  if(written)
    message(FATAL_ERROR "a third-party notice was registered after "
            "sandbox_write_third_party_notices(): register it before the end of the top-level "
            "CMakeLists.txt")
  endif()
  get_property(entries GLOBAL PROPERTY SANDBOX_NOTICES_ENTRIES)
  string(JSON n LENGTH "${entries}")
  string(JSON entries SET "${entries}" ${n} "${entry}")
  set_property(GLOBAL PROPERTY SANDBOX_NOTICES_ENTRIES "${entries}")
endfunction()

function(sandbox_third_party_notice)
  cmake_parse_arguments(ARG "" "NAME;VERSION;ORIGIN;DIR;NOTE" "FILES;DEPENDS" ${ARGN})
  foreach(req NAME VERSION ORIGIN DIR DEPENDS)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_third_party_notice: ${req} is required")
    endif()
  endforeach()
  set(entry "{\"kind\": \"component\", \"files\": []}")
  foreach(key NAME VERSION ORIGIN DIR NOTE)
    string(TOLOWER ${key} json_key)
    _sandbox_json_set_string(entry ${json_key} "${ARG_${key}}")
  endforeach()
  set(i 0)
  foreach(file IN LISTS ARG_FILES)
    _sandbox_json_quote(file_json "${file}")
    string(JSON entry SET "${entry}" files ${i} "${file_json}")
    math(EXPR i "${i} + 1")
  endforeach()
  _sandbox_notices_add("${entry}")
  set_property(GLOBAL APPEND PROPERTY SANDBOX_NOTICES_DEPENDS ${ARG_DEPENDS})
endfunction()

function(sandbox_third_party_npm_notices)
  cmake_parse_arguments(ARG "" "LOCK;NODE_MODULES;ORIGIN" "DEPENDS" ${ARGN})
  foreach(req LOCK NODE_MODULES ORIGIN DEPENDS)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_third_party_npm_notices: ${req} is required")
    endif()
  endforeach()
  get_filename_component(lock "${ARG_LOCK}" ABSOLUTE)
  set(entry "{\"kind\": \"npm-lock\"}")
  _sandbox_json_set_string(entry lock "${lock}")
  _sandbox_json_set_string(entry nodeModules "${ARG_NODE_MODULES}")
  _sandbox_json_set_string(entry origin "${ARG_ORIGIN}")
  _sandbox_notices_add("${entry}")
  set_property(GLOBAL APPEND PROPERTY SANDBOX_NOTICES_DEPENDS ${ARG_DEPENDS} "${lock}")
endfunction()

function(sandbox_third_party_not_shipped)
  cmake_parse_arguments(ARG "" "DIR;WHY" "" ${ARGN})
  foreach(req DIR WHY)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_third_party_not_shipped: ${req} is required")
    endif()
  endforeach()
  set(entry "{\"kind\": \"not-shipped\"}")
  _sandbox_json_set_string(entry dir "${ARG_DIR}")
  _sandbox_json_set_string(entry why "${ARG_WHY}")
  _sandbox_notices_add("${entry}")
endfunction()

function(sandbox_installed_package_notice)
  cmake_parse_arguments(ARG "" "NAME;FILE;NOTE" "" ${ARGN})
  foreach(req NAME FILE NOTE)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_installed_package_notice: ${req} is required")
    endif()
  endforeach()
  if(NOT EXISTS "${ARG_FILE}")
    return()
  endif()
  find_program(SANDBOX_DPKG_QUERY dpkg-query)
  set(package "")
  if(SANDBOX_DPKG_QUERY)
    # dpkg knows the path it installed, which may be a symbolic link's (merged /usr).
    file(REAL_PATH "${ARG_FILE}" real)
    foreach(path IN ITEMS "${ARG_FILE}" "${real}")
      execute_process(COMMAND "${SANDBOX_DPKG_QUERY}" -S "${path}" OUTPUT_VARIABLE out
                      RESULT_VARIABLE rc ERROR_QUIET)
      if(rc EQUAL 0 AND out MATCHES "^([^:, 
]+)")
        set(package "${CMAKE_MATCH_1}")
        break()
      endif()
    endforeach()
  endif()
  set(copyright "/usr/share/doc/${package}/copyright")
  if(package STREQUAL "" OR NOT EXISTS "${copyright}")
    message(WARNING "${ARG_NAME} (${ARG_FILE}) comes from no Debian package with a copyright "
            "file, so THIRD_PARTY_NOTICES will not list it: register its licence with "
            "sandbox_third_party_notice() (docs/redistribution.md#third-party-notices)")
    return()
  endif()
  execute_process(COMMAND "${SANDBOX_DPKG_QUERY}" -W -f=\${Version} "${package}"
                  OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  sandbox_third_party_notice(NAME "${ARG_NAME}" VERSION "${version}"
    ORIGIN "Debian package ${package}, installed on the build machine" DIR "/usr/share/doc/${package}"
    FILES copyright NOTE "${ARG_NOTE}" DEPENDS "${copyright}")
endfunction()

# The manifest and the step that turns it into THIRD_PARTY_NOTICES and copyright.
function(sandbox_write_third_party_notices)
  get_property(entries GLOBAL PROPERTY SANDBOX_NOTICES_ENTRIES)
  get_property(depends GLOBAL PROPERTY SANDBOX_NOTICES_DEPENDS)
  set_property(GLOBAL PROPERTY SANDBOX_NOTICES_WRITTEN TRUE)
  _sandbox_json_quote(version_json "${PROJECT_VERSION}")
  set(manifest "{\"project\": \"sandbox-workers\", \"version\": ${version_json}}")
  string(JSON manifest SET "${manifest}" components "${entries}")
  # Rewritten only when it changes, so that an unchanged configure regenerates nothing.
  file(WRITE "${SANDBOX_THIRD_PARTY_MANIFEST}.tmp" "${manifest}\n")
  file(COPY_FILE "${SANDBOX_THIRD_PARTY_MANIFEST}.tmp" "${SANDBOX_THIRD_PARTY_MANIFEST}"
       ONLY_IF_DIFFERENT)
  set(generator "${PROJECT_SOURCE_DIR}/cmake/SandboxNoticesGenerate.cmake")
  add_custom_command(
    OUTPUT "${SANDBOX_THIRD_PARTY_NOTICES}" "${SANDBOX_COPYRIGHT_FILE}"
    COMMAND ${CMAKE_COMMAND} "-DMANIFEST=${SANDBOX_THIRD_PARTY_MANIFEST}"
            "-DLICENSE=${PROJECT_SOURCE_DIR}/LICENSE" "-DNOTICES=${SANDBOX_THIRD_PARTY_NOTICES}"
            "-DCOPYRIGHT=${SANDBOX_COPYRIGHT_FILE}" -P "${generator}"
    DEPENDS ${depends} "${SANDBOX_THIRD_PARTY_MANIFEST}" "${generator}"
            "${PROJECT_SOURCE_DIR}/LICENSE"
    COMMENT "Writing THIRD_PARTY_NOTICES from the pinned fetches' licence files"
    VERBATIM)
  add_custom_target(sandbox_third_party_notices ALL
    DEPENDS "${SANDBOX_THIRD_PARTY_NOTICES}" "${SANDBOX_COPYRIGHT_FILE}")
endfunction()
