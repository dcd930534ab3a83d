# Writes a C header that embeds a file as a NUL-terminated char array (build-time helper).
#   cmake -DINPUT=<file> -DOUTPUT=<header> -DNAME=<identifier> -P embed_file.cmake
foreach(var INPUT OUTPUT NAME)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_file.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){24})" "\\1\n" bytes "${bytes}")
get_filename_component(input_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${input_name} by embed_file.cmake; do not edit. */\n"
  "static const char ${NAME}[${size} + 1] = {\n${bytes}0};\n"
  "enum { ${NAME}_size = ${size} };\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
