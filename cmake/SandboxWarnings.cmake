# Warnings are errors on the project's own code. Generated wasm2c output and fetched third-party
# sources are compiled without this function, so their warnings never break the build.
function(sandbox_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror
    $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Woverloaded-virtual>)
endfunction()
