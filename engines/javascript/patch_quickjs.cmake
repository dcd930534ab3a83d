# Copies quickjs.c with the two changes wasm32-wasi needs (build-time helper):
#   - CONFIG_ATOMICS off: Atomics need threads, which WASI preview1 does not have;
#   - CONFIG_PRINTF_RNDN off: Wasm has only round-to-nearest, no FE_UPWARD/FE_DOWNWARD, so
#     the printf rounding fix-up cannot work (consequence: toFixed rounds ties to even).
# Each definition must occur exactly once, so a different QuickJS fails loudly here.
#   cmake -DINPUT=<quickjs.c> -DOUTPUT=<patched quickjs.c> -P patch_quickjs.cmake
foreach(var INPUT OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "patch_quickjs.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${INPUT}" src)
foreach(def CONFIG_ATOMICS CONFIG_PRINTF_RNDN)
  set(old "\n#define ${def}\n")
  string(FIND "${src}" "${old}" first)
  string(FIND "${src}" "${old}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "patch_quickjs.cmake: expected exactly one '#define ${def}' in ${INPUT}")
  endif()
  string(REPLACE "${old}" "\n#ifndef __wasi__\n#define ${def}\n#endif\n" src "${src}")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${src}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
