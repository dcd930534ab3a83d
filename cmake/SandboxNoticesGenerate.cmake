# Writes THIRD_PARTY_NOTICES and the .deb's copyright file from the registrations of
# cmake/SandboxNotices.cmake (docs/redistribution.md#third-party-notices), once every fetch has
# unpacked its tree:
#
#   cmake -DMANIFEST=<third_party_notices.json> -DLICENSE=<LICENSE> -DNOTICES=<out>
#         -DCOPYRIGHT=<out> -P SandboxNoticesGenerate.cmake
#
# The components are sorted by name (one section for a name and version registered twice);
# a component whose licence cannot be found stops the build, naming it.
cmake_minimum_required(VERSION 3.25)

foreach(var MANIFEST LICENSE NOTICES COPYRIGHT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "SandboxNoticesGenerate.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${MANIFEST}" manifest)
string(JSON project GET "${manifest}" project)
string(JSON version GET "${manifest}" version)
string(JSON n_entries LENGTH "${manifest}" components)

set(keys "")  # "<lowercase name> <version>", one per component
set(rule "================================================================================")

# Adds a component: its heading fields and the text of its section's body.
function(add_component name version origin note body)
  string(TOLOWER "${name} ${version}" key)
  string(MAKE_C_IDENTIFIER "${key}" id)
  if(DEFINED component_${id}_name)
    string(FIND "; ${component_${id}_origin}; " "; ${origin}; " seen)
    if(seen EQUAL -1)
      set(component_${id}_origin "${component_${id}_origin}; ${origin}" PARENT_SCOPE)
    endif()
    return()
  endif()
  set(component_${id}_name "${name}" PARENT_SCOPE)
  set(component_${id}_version "${version}" PARENT_SCOPE)
  set(component_${id}_origin "${origin}" PARENT_SCOPE)
  set(component_${id}_note "${note}" PARENT_SCOPE)
  set(component_${id}_body "${body}" PARENT_SCOPE)
  set(keys ${keys} "${key}" PARENT_SCOPE)
endfunction()

# The section body of the licence files `files` (relative to `dir`), each under its name.
function(files_body out_var dir)
  set(body "")
  foreach(file IN LISTS ARGN)
    if(NOT EXISTS "${dir}/${file}")
      message(FATAL_ERROR "third-party notices: ${dir}/${file} does not exist (a registered "
              "licence file; cmake/SandboxNotices.cmake)")
    endif()
    file(READ "${dir}/${file}" text)
    string(REPLACE "\r\n" "\n" text "${text}")
    if(NOT text MATCHES "\n$")
      string(APPEND text "\n")
    endif()
    string(APPEND body "\n--- ${file} ---\n\n${text}")
  endforeach()
  set(${out_var} "${body}" PARENT_SCOPE)
endfunction()

# The licence of the package unpacked in `dir`: its licence files, else its package.json's
# "license" field; `name` is for the error.
function(searched_body out_var name dir)
  file(GLOB entries LIST_DIRECTORIES false RELATIVE "${dir}" "${dir}/*")
  set(found "")
  foreach(entry IN LISTS entries)
    string(TOUPPER "${entry}" upper)
    if(upper MATCHES "^(LICENSE|LICENCE|COPYING|NOTICE)")
      list(APPEND found "${entry}")
    endif()
  endforeach()
  if(found)
    list(SORT found)
    files_body(body "${dir}" ${found})
    set(${out_var} "${body}" PARENT_SCOPE)
    return()
  endif()
  set(license "")
  if(EXISTS "${dir}/package.json")
    file(READ "${dir}/package.json" package_json)
    string(JSON type ERROR_VARIABLE error TYPE "${package_json}" license)
    if(type STREQUAL "STRING")
      string(JSON license GET "${package_json}" license)
    elseif(type STREQUAL "OBJECT")
      string(JSON license GET "${package_json}" license type)
    endif()
  endif()
  if(license STREQUAL "")
    message(FATAL_ERROR "third-party notices: ${name} (${dir}) has no licence file and no "
            "\"license\" in its package.json: register its licence files explicitly "
            "(cmake/SandboxNotices.cmake, FILES)")
  endif()
  set(${out_var} "\nThe package ships no licence file; its package.json gives its licence as: \
${license}\n" PARENT_SCOPE)
endfunction()

set(i 0)
while(i LESS n_entries)
  string(JSON entry GET "${manifest}" components ${i})
  string(JSON kind GET "${entry}" kind)
  if(NOT kind STREQUAL "not-shipped")
    string(JSON origin GET "${entry}" origin)
  endif()
  if(kind STREQUAL "component")
    string(JSON name GET "${entry}" name)
    string(JSON component_version GET "${entry}" version)
    string(JSON dir GET "${entry}" dir)
    string(JSON note GET "${entry}" note)
    string(JSON n_files LENGTH "${entry}" files)
    set(files "")
    if(n_files GREATER 0)
      math(EXPR last_file "${n_files} - 1")
      foreach(f RANGE 0 ${last_file})
        string(JSON file GET "${entry}" files ${f})
        list(APPEND files "${file}")
      endforeach()
      files_body(body "${dir}" ${files})
    else()
      searched_body(body "${name}" "${dir}")
    endif()
    add_component("${name}" "${component_version}" "${origin}" "${note}" "${body}")
  elseif(kind STREQUAL "npm-lock")
    # Every package of the lock but the devDependencies (and optional packages this platform
    # did not install).
    string(JSON lock_path GET "${entry}" lock)
    string(JSON node_modules GET "${entry}" nodeModules)
    file(READ "${lock_path}" lock)
    string(JSON n_packages LENGTH "${lock}" packages)
    math(EXPR last_package "${n_packages} - 1")
    foreach(p RANGE 0 ${last_package})
      string(JSON path MEMBER "${lock}" packages ${p})
      if(path STREQUAL "")
        continue()  # the project itself
      endif()
      string(JSON dev ERROR_VARIABLE error GET "${lock}" packages "${path}" dev)
      string(JSON optional ERROR_VARIABLE error GET "${lock}" packages "${path}" optional)
      string(REGEX REPLACE "^node_modules/" "" relative "${path}")
      string(REGEX REPLACE "^.*/node_modules/" "" name "${relative}")
      if(dev STREQUAL "ON" OR (optional STREQUAL "ON" AND NOT EXISTS "${node_modules}/${relative}"))
        continue()
      endif()
      string(JSON package_version GET "${lock}" packages "${path}" version)
      searched_body(body "${name}" "${node_modules}/${relative}")
      add_component("${name}" "${package_version}" "${origin}" "" "${body}")
    endforeach()
  elseif(NOT kind STREQUAL "not-shipped")
    message(FATAL_ERROR "third-party notices: unknown manifest entry kind '${kind}'")
  endif()
  math(EXPR i "${i} + 1")
endwhile()

list(SORT keys COMPARE NATURAL)
list(LENGTH keys n_components)
set(index "")
set(sections "")
foreach(key IN LISTS keys)
  string(MAKE_C_IDENTIFIER "${key}" id)
  string(APPEND index "  ${component_${id}_name} ${component_${id}_version}\n")
  string(APPEND sections "\n${rule}\n${component_${id}_name} ${component_${id}_version}\n")
  string(APPEND sections "From: ${component_${id}_origin}\n")
  if(NOT component_${id}_note STREQUAL "")
    string(APPEND sections "Note: ${component_${id}_note}\n")
  endif()
  string(APPEND sections "${rule}\n${component_${id}_body}")
endforeach()

set(notices "Third-party notices of ${project} ${version}

${project} itself is under the MIT licence (the file LICENSE beside this one). Its programs
(sandboxd, sandbox-runtime) and engine libraries contain the third-party components below,
each fetched at a pinned version, or taken from the build machine's Debian packages, when they
were built. Each section holds the licence files the component ships, verbatim.

Components (${n_components}):
${index}${sections}")
file(READ "${LICENSE}" license_text)
set(copyright "${project} ${version}, under the MIT licence:

${license_text}
The programs of this package contain third-party components; their notices follow.

${notices}")

# Written only when changed, so that what embeds the notices is not rebuilt for nothing (Ninja
# runs custom commands with restat).
foreach(out NOTICES COPYRIGHT)
  string(TOLOWER "${out}" var)
  file(WRITE "${${out}}.tmp" "${${var}}")
  file(COPY_FILE "${${out}}.tmp" "${${out}}" ONLY_IF_DIFFERENT)
  file(REMOVE "${${out}}.tmp")
endforeach()
