# Warnings are errors on the project's own code. Generated wasm2c output and fetched third-party
# sources are compiled without this function, so their warnings never break the build.
function(sandbox_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror
    $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Woverloaded-virtual>
    # Our value types have default member initializers and are meant to be built with
    # designated initializers that name only what differs from the defaults.
    $<$<COMPILE_LANGUAGE:CXX>:-Wno-missing-field-initializers>)
endfunction()
