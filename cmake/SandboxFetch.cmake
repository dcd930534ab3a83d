# Build-time fetching of third-party sources, pinned and verified.
#
# Sources come only from Debian's archive (source packages, or one pinned file of its pools)
# and the npm registry. Every download lands in a cache outside the build tree
# (SANDBOX_CACHE_DIR, from the environment variable of the same name, default
# ~/.cache/sandbox-workers), is checked against its pin each time it is used, and is unpacked
# into the build tree by a custom command that runs again only when its pin or the fetch script
# changes. Nothing fetched is ever written to the source tree.
#
#   sandbox_fetch_debian_source(NAME <pkg> VERSION <debian version> DSC_SHA256 <hex>
#                               SOURCE_DIR <dir> STAMP_VAR <var> [SKIP_PATCHES]
#                               [POST_UNPACK <command...>] [POST_UNPACK_DEPENDS <files>...]
#                               [BYPRODUCTS <paths relative to SOURCE_DIR>...])
#     Unpacks <pkg>_<version>.dsc into SOURCE_DIR (Debian patches applied unless SKIP_PATCHES).
#     POST_UNPACK runs after every unpack, in the same step, so it always sees a fresh tree.
#   sandbox_fetch_debian_pool_file(PATH <pool/main/...> SHA256 <hex> DEST <dir> STAMP_VAR <var>
#                                  [STRIP_COMPONENTS <n>] [QUILT_PATCHES <debian dir>]
#                                  [DEPENDS <files>...] [BYPRODUCTS <paths relative to DEST>...])
#     One pinned file of the archives' pools (a version whose .dsc the mirror lacks, or a binary
#     package): a .deb is unpacked with dpkg-deb -x, a tarball with tar (STRIP_COMPONENTS), into
#     DEST. QUILT_PATCHES applies that Debian directory's patches/series to the unpacked tree.
#   sandbox_fetch_npm_package(SPEC <name@version> INTEGRITY <sha512-...>
#                             SOURCE_DIR <dir> STAMP_VAR <var> [BYPRODUCTS <relative paths>...]
#                             [NOTICE_NAME <component> NOTICE_VERSION <version>]
#                             [NOTICE_FILES <paths relative to package/>...] [NOTICE_NOTE <text>])
#     Unpacks the tarball into SOURCE_DIR (its files are under SOURCE_DIR/package/). NOTICE_*:
#     what its third-party notice says, when the package's own name and licence files are not
#     the right ones (the component it carries has its own).
#   sandbox_fetch_locked_npm_wasm(PACKAGE <name> LOCK <npm-lock.json> SOURCE_DIR <dir>
#                                 STAMP_VAR <var> WASM_VAR <var>)
#     A prebuilt .wasm shipped in an npm package pinned in LOCK (packages.<name>: version,
#     integrity and the module's path inside the package, `wasm`; optionally `notices`, its
#     licence files when they are not at the package's top, and `notice`, a note for its
#     third-party notice): fetched as above; WASM_VAR receives the module's path. A change of
#     LOCK reconfigures.
#   sandbox_npm_ci(PROJECT_DIR <dir> DEST <dir> STAMP_VAR <var> [NOT_SHIPPED])
#     Installs the packages pinned by PROJECT_DIR/package-lock.json into DEST/node_modules.
#     NOT_SHIPPED: nothing of them reaches what the build ships (a test's tools), so they get no
#     third-party notice.
#
# STAMP_VAR receives the stamp file written last by the step: depend on it.
#
# Each fetch registers its third-party notice (cmake/SandboxNotices.cmake): a Debian source
# package's debian/copyright, an npm package's licence files, every package an npm lock installs
# but its devDependencies. A new fetch function registers with one sandbox_third_party_notice().

include_guard(GLOBAL)
include(SandboxNotices)

if(DEFINED ENV{SANDBOX_CACHE_DIR} AND NOT "$ENV{SANDBOX_CACHE_DIR}" STREQUAL "")
  set(_sandbox_cache_default "$ENV{SANDBOX_CACHE_DIR}")
else()
  set(_sandbox_cache_default "$ENV{HOME}/.cache/sandbox-workers")
endif()
set(SANDBOX_CACHE_DIR "${_sandbox_cache_default}" CACHE PATH
    "Download cache for engine sources (outside the build tree; shared between builds)")

# The fetch scripts, found relative to this file (functions run in their caller's scope).
macro(_sandbox_fetch_scripts_dir out_var)
  set(${out_var} "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../scripts/fetch")
  cmake_path(NORMAL_PATH ${out_var})
endmacro()

function(_sandbox_prefix_paths out_var base)
  set(result "")
  foreach(p ${ARGN})
    list(APPEND result "${base}/${p}")
  endforeach()
  set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

function(sandbox_fetch_debian_source)
  _sandbox_fetch_scripts_dir(_sandbox_fetch_scripts)
  cmake_parse_arguments(ARG "SKIP_PATCHES" "NAME;VERSION;DSC_SHA256;SOURCE_DIR;STAMP_VAR"
                        "BYPRODUCTS;POST_UNPACK;POST_UNPACK_DEPENDS" ${ARGN})
  foreach(req NAME VERSION DSC_SHA256 SOURCE_DIR STAMP_VAR)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_fetch_debian_source: ${req} is required")
    endif()
  endforeach()
  set(stamp "${ARG_SOURCE_DIR}.stamp")
  set(extra "")
  if(ARG_SKIP_PATCHES)
    set(extra --skip-patches)
  endif()
  _sandbox_prefix_paths(byproducts "${ARG_SOURCE_DIR}" ${ARG_BYPRODUCTS})
  set(post "")
  if(ARG_POST_UNPACK)
    set(post COMMAND ${ARG_POST_UNPACK})
  endif()
  # The stamp is written last (after POST_UNPACK), so a failed step runs again next time.
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${byproducts}
    COMMAND ${CMAKE_COMMAND} -E rm -f "${stamp}"
    COMMAND "${_sandbox_fetch_scripts}/debian-source.sh"
            --name "${ARG_NAME}" --version "${ARG_VERSION}" --dsc-sha256 "${ARG_DSC_SHA256}"
            --cache "${SANDBOX_CACHE_DIR}" --dest "${ARG_SOURCE_DIR}" ${extra}
    ${post}
    COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
    DEPENDS "${_sandbox_fetch_scripts}/debian-source.sh"
            "${_sandbox_fetch_scripts}/debian-archives.sh" ${ARG_POST_UNPACK_DEPENDS}
    COMMENT "Fetching and unpacking Debian source ${ARG_NAME} ${ARG_VERSION}"
    USES_TERMINAL
    VERBATIM)
  set(${ARG_STAMP_VAR} "${stamp}" PARENT_SCOPE)
  sandbox_third_party_notice(NAME "${ARG_NAME}" VERSION "${ARG_VERSION}"
    ORIGIN "Debian source package ${ARG_NAME}" DIR "${ARG_SOURCE_DIR}"
    FILES debian/copyright DEPENDS "${stamp}")
endfunction()

function(sandbox_fetch_debian_pool_file)
  _sandbox_fetch_scripts_dir(_sandbox_fetch_scripts)
  cmake_parse_arguments(ARG "" "PATH;SHA256;DEST;STAMP_VAR;STRIP_COMPONENTS;QUILT_PATCHES"
                        "BYPRODUCTS;DEPENDS" ${ARGN})
  foreach(req PATH SHA256 DEST STAMP_VAR)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_fetch_debian_pool_file: ${req} is required")
    endif()
  endforeach()
  set(stamp "${ARG_DEST}.stamp")
  set(extra "")
  if(ARG_STRIP_COMPONENTS)
    list(APPEND extra --strip-components "${ARG_STRIP_COMPONENTS}")
  endif()
  if(ARG_QUILT_PATCHES)
    list(APPEND extra --quilt-patches "${ARG_QUILT_PATCHES}")
  endif()
  _sandbox_prefix_paths(byproducts "${ARG_DEST}" ${ARG_BYPRODUCTS})
  get_filename_component(file_name "${ARG_PATH}" NAME)
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${byproducts}
    COMMAND ${CMAKE_COMMAND} -E rm -f "${stamp}"
    COMMAND "${_sandbox_fetch_scripts}/debian-pool-file.sh"
            --path "${ARG_PATH}" --sha256 "${ARG_SHA256}"
            --cache "${SANDBOX_CACHE_DIR}" --dest "${ARG_DEST}" ${extra} --stamp "${stamp}"
    DEPENDS "${_sandbox_fetch_scripts}/debian-pool-file.sh"
            "${_sandbox_fetch_scripts}/debian-archives.sh" ${ARG_DEPENDS}
    COMMENT "Fetching and unpacking ${file_name} from the Debian archive"
    USES_TERMINAL
    VERBATIM)
  set(${ARG_STAMP_VAR} "${stamp}" PARENT_SCOPE)
endfunction()

function(sandbox_fetch_npm_package)
  _sandbox_fetch_scripts_dir(_sandbox_fetch_scripts)
  cmake_parse_arguments(ARG ""
    "SPEC;INTEGRITY;SOURCE_DIR;STAMP_VAR;NOTICE_NAME;NOTICE_VERSION;NOTICE_NOTE"
    "BYPRODUCTS;NOTICE_FILES" ${ARGN})
  foreach(req SPEC INTEGRITY SOURCE_DIR STAMP_VAR)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_fetch_npm_package: ${req} is required")
    endif()
  endforeach()
  set(stamp "${ARG_SOURCE_DIR}.stamp")
  _sandbox_prefix_paths(byproducts "${ARG_SOURCE_DIR}" ${ARG_BYPRODUCTS})
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${byproducts}
    COMMAND "${_sandbox_fetch_scripts}/npm-package.sh"
            --spec "${ARG_SPEC}" --integrity "${ARG_INTEGRITY}"
            --cache "${SANDBOX_CACHE_DIR}" --dest "${ARG_SOURCE_DIR}" --stamp "${stamp}"
    DEPENDS "${_sandbox_fetch_scripts}/npm-package.sh"
    COMMENT "Fetching and unpacking npm package ${ARG_SPEC}"
    USES_TERMINAL
    VERBATIM)
  set(${ARG_STAMP_VAR} "${stamp}" PARENT_SCOPE)
  string(REGEX MATCH "^(.+)@([^@]+)$" spec_match "${ARG_SPEC}")
  set(notice_name "${CMAKE_MATCH_1}")
  set(notice_version "${CMAKE_MATCH_2}")
  if(ARG_NOTICE_NAME)
    set(notice_name "${ARG_NOTICE_NAME}")
    set(notice_version "${ARG_NOTICE_VERSION}")
  endif()
  sandbox_third_party_notice(NAME "${notice_name}" VERSION "${notice_version}"
    ORIGIN "npm package ${ARG_SPEC}" DIR "${ARG_SOURCE_DIR}/package" FILES ${ARG_NOTICE_FILES}
    NOTE "${ARG_NOTICE_NOTE}" DEPENDS "${stamp}")
endfunction()

function(sandbox_fetch_locked_npm_wasm)
  cmake_parse_arguments(ARG "" "PACKAGE;LOCK;SOURCE_DIR;STAMP_VAR;WASM_VAR" "" ${ARGN})
  foreach(req PACKAGE LOCK SOURCE_DIR STAMP_VAR WASM_VAR)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_fetch_locked_npm_wasm: ${req} is required")
    endif()
  endforeach()
  get_filename_component(lock "${ARG_LOCK}" ABSOLUTE)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${lock}")
  file(READ "${lock}" lock_json)
  string(JSON version GET "${lock_json}" packages "${ARG_PACKAGE}" version)
  string(JSON integrity GET "${lock_json}" packages "${ARG_PACKAGE}" integrity)
  string(JSON wasm GET "${lock_json}" packages "${ARG_PACKAGE}" wasm)
  set(notice_files "")
  string(JSON n_notices ERROR_VARIABLE no_notices LENGTH "${lock_json}" packages "${ARG_PACKAGE}"
         notices)
  if(NOT no_notices AND n_notices GREATER 0)
    math(EXPR last "${n_notices} - 1")
    foreach(i RANGE 0 ${last})
      string(JSON file GET "${lock_json}" packages "${ARG_PACKAGE}" notices ${i})
      list(APPEND notice_files "${file}")
    endforeach()
  endif()
  string(JSON notice_note ERROR_VARIABLE no_note GET "${lock_json}" packages "${ARG_PACKAGE}"
         notice)
  if(no_note)
    set(notice_note "")
  endif()
  sandbox_fetch_npm_package(SPEC "${ARG_PACKAGE}@${version}" INTEGRITY "${integrity}"
    SOURCE_DIR "${ARG_SOURCE_DIR}" STAMP_VAR stamp BYPRODUCTS "package/${wasm}"
    NOTICE_FILES ${notice_files} NOTICE_NOTE "${notice_note}")
  set(${ARG_STAMP_VAR} "${stamp}" PARENT_SCOPE)
  set(${ARG_WASM_VAR} "${ARG_SOURCE_DIR}/package/${wasm}" PARENT_SCOPE)
endfunction()

function(sandbox_npm_ci)
  _sandbox_fetch_scripts_dir(_sandbox_fetch_scripts)
  cmake_parse_arguments(ARG "NOT_SHIPPED" "PROJECT_DIR;DEST;STAMP_VAR" "" ${ARGN})
  foreach(req PROJECT_DIR DEST STAMP_VAR)
    if(NOT ARG_${req})
      message(FATAL_ERROR "sandbox_npm_ci: ${req} is required")
    endif()
  endforeach()
  set(stamp "${ARG_DEST}.stamp")
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${_sandbox_fetch_scripts}/npm-ci.sh"
            --project "${ARG_PROJECT_DIR}" --cache "${SANDBOX_CACHE_DIR}" --dest "${ARG_DEST}"
            --stamp "${stamp}"
    DEPENDS "${_sandbox_fetch_scripts}/npm-ci.sh" "${ARG_PROJECT_DIR}/package.json"
            "${ARG_PROJECT_DIR}/package-lock.json"
    COMMENT "Installing pinned npm packages from ${ARG_PROJECT_DIR}/package-lock.json"
    USES_TERMINAL
    VERBATIM)
  set(${ARG_STAMP_VAR} "${stamp}" PARENT_SCOPE)
  file(RELATIVE_PATH lock_shown "${PROJECT_SOURCE_DIR}" "${ARG_PROJECT_DIR}/package-lock.json")
  if(ARG_NOT_SHIPPED)
    sandbox_third_party_not_shipped(DIR "${ARG_DEST}" WHY "${lock_shown}: NOT_SHIPPED")
  else()
    sandbox_third_party_npm_notices(LOCK "${ARG_PROJECT_DIR}/package-lock.json"
      NODE_MODULES "${ARG_DEST}/node_modules" ORIGIN "npm package pinned by ${lock_shown}"
      DEPENDS "${stamp}")
  endif()
endfunction()
