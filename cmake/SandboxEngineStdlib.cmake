# Embedding an engine's /stdlib into the program, so a built binary needs no files beside it.
#
#   sandbox_engine_stdlib_archive(<library> ARCHIVE <out.zip> SYMBOL <c identifier>
#                                 FILES <name in archive>=<file>... DEPENDS <files/targets>...)
#     Packs the files into an uncompressed ZIP (engines/common/make_mount_archive.py) and adds
#     it to <library> with .incbin. C/C++ code then declares
#       extern "C" const unsigned char <SYMBOL>_start[], <SYMBOL>_end[];
#     and builds the tree with sandbox::StdlibTree::from_zip({<SYMBOL>_start, <SYMBOL>_end}).
include_guard(GLOBAL)

# find_program's result is a cache variable, so it is visible in every directory (this file
# runs once, in the first directory that includes it). Debian's python3 first.
find_program(SANDBOX_HOST_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(SANDBOX_HOST_PYTHON3 NAMES python3)
if(NOT SANDBOX_HOST_PYTHON3)
  message(FATAL_ERROR "python3 is needed to pack the engines' /stdlib archives")
endif()

function(sandbox_engine_stdlib_archive library)
  cmake_parse_arguments(ARG "" "ARCHIVE;SYMBOL" "FILES;DEPENDS" ${ARGN})
  if(NOT ARG_ARCHIVE OR NOT ARG_SYMBOL OR NOT ARG_FILES)
    message(FATAL_ERROR "sandbox_engine_stdlib_archive: ARCHIVE, SYMBOL and FILES are required")
  endif()
  set(files "")
  foreach(entry ${ARG_FILES})
    string(REGEX REPLACE "^[^=]*=" "" file "${entry}")
    list(APPEND files "${file}")
  endforeach()
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../engines/common/make_mount_archive.py")
  add_custom_command(
    OUTPUT "${ARG_ARCHIVE}"
    COMMAND "${SANDBOX_HOST_PYTHON3}" "${script}" "${ARG_ARCHIVE}" ${ARG_FILES}
    DEPENDS ${files} ${ARG_DEPENDS} "${script}"
    COMMENT "Packing the /stdlib archive ${ARG_SYMBOL}"
    VERBATIM)
  set(asm "${ARG_ARCHIVE}.S")
  file(GENERATE OUTPUT "${asm}" CONTENT
"  .section .rodata.${ARG_SYMBOL},\"a\",@progbits
  .balign 16
  .globl ${ARG_SYMBOL}_start
  .globl ${ARG_SYMBOL}_end
${ARG_SYMBOL}_start:
  .incbin \"${ARG_ARCHIVE}\"
${ARG_SYMBOL}_end:
  .section .note.GNU-stack,\"\",@progbits
")
  set_source_files_properties("${asm}" PROPERTIES LANGUAGE ASM OBJECT_DEPENDS "${ARG_ARCHIVE}")
  # Listing the archive as a source attaches its custom command to the library.
  target_sources(${library} PRIVATE "${asm}" "${ARG_ARCHIVE}")
endfunction()
