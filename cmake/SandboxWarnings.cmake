# Warnings on the project's own code, errors with SANDBOX_WERROR (CMakeLists.txt; ON in every
# preset). Generated wasm2c output and fetched third-party sources are compiled without this
# function, so their warnings never break the build. SANDBOX_WERROR_FLAG is -Werror or nothing,
# for the engines' own guest drivers (compiled by sandbox_wasi_compile, not as CMake targets).
if(SANDBOX_WERROR)
  set(SANDBOX_WERROR_FLAG -Werror)
else()
  set(SANDBOX_WERROR_FLAG "")
endif()

function(sandbox_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra ${SANDBOX_WERROR_FLAG}
    $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Woverloaded-virtual>
    # Our value types have default member initializers and are meant to be built with
    # designated initializers that name only what differs from the defaults.
    $<$<COMPILE_LANGUAGE:CXX>:-Wno-missing-field-initializers>
    # Clang checks the lock annotations (src/base/thread_annotations.h): in the clang-built
    # `fuzz` preset a member touched without its SANDBOX_GUARDED_BY mutex fails the build. gcc
    # has no such analysis (the macros expand to nothing there).
    $<$<COMPILE_LANG_AND_ID:CXX,Clang>:-Wthread-safety>)
endfunction()
