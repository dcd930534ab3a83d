# Embedding an engine's /stdlib into the program, so a built binary needs no files beside it.
#
#   sandbox_engine_stdlib_archive(<library> ARCHIVE <out.zip> SYMBOL <c identifier>
#                                 FILES <name in archive>=<file>... DEPENDS <files/targets>...)
#     Packs the files into an uncompressed ZIP (engines/common/make_mount_archive.py) and adds
#     it to <library> with .incbin. C/C++ code then declares
#       extern "C" const unsigned char <SYMBOL>_start[], <SYMBOL>_end[];
#     and builds the tree with sandbox::StdlibTree::from_zip({<SYMBOL>_start, <SYMBOL>_end}).
include_guard(GLOBAL)

find_package(Python3 REQUIRED COMPONENTS Interpreter)

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
    COMMAND "${Python3_EXECUTABLE}" "${script}" "${ARG_ARCHIVE}" ${ARG_FILES}
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
  target_sources(${library} PRIVATE "${asm}")
endfunction()
