# The sanitizer and fuzzing instrumentation of the asan, tsan and fuzz presets as one INTERFACE
# target, sandbox_sanitizers, rather than global compile options: the project's own targets link
# it (sandbox_link_sanitizers(), run at the end of the top-level CMakeLists.txt, so that no
# target is forgotten), while code the project does not instrument opts out with the target
# property SANDBOX_NO_SANITIZERS (the wasm2c output of cmake/SandboxWasm.cmake). It is linked as
# $<BUILD_INTERFACE:...>, so the installed kit's targets never carry it.
#
#   SANDBOX_SANITIZE  AddressSanitizer + UndefinedBehaviorSanitizer (asan preset)
#   SANDBOX_TSAN      ThreadSanitizer (tsan preset)
#   SANDBOX_FUZZ      libFuzzer coverage + ASan + UBSan (fuzz preset, clang; only the fuzz
#                     targets link libFuzzer's main, tests/fuzz/CMakeLists.txt)
include_guard(GLOBAL)

add_library(sandbox_sanitizers INTERFACE)
if(SANDBOX_SANITIZE)
  target_compile_options(sandbox_sanitizers INTERFACE -fsanitize=address,undefined
                         -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(sandbox_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
if(SANDBOX_TSAN)
  if(SANDBOX_SANITIZE)
    message(FATAL_ERROR "SANDBOX_TSAN and SANDBOX_SANITIZE cannot be combined")
  endif()
  # ThreadSanitizer does not model std::atomic_thread_fence (gcc warns, -Wtsan); Asio's fenced
  # blocks are its only use here, and Asio's scheduler also synchronizes with mutexes, so they
  # are compiled out in this build instead of hiding the warning. Every target that includes
  # Asio must see the same definition (one definition rule), hence on every project target.
  target_compile_options(sandbox_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_compile_definitions(sandbox_sanitizers INTERFACE BOOST_ASIO_DISABLE_FENCED_BLOCK)
  target_link_options(sandbox_sanitizers INTERFACE -fsanitize=thread)
endif()
if(SANDBOX_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SANDBOX_FUZZ needs clang (use the `fuzz` preset)")
  endif()
  # -Wno-deprecated-declarations: clang flags std::get_temporary_buffer, which libstdc++ 12's
  # own stable_sort calls (a header mismatch, not our code; gcc builds keep the warning).
  target_compile_options(sandbox_sanitizers INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                         -fno-omit-frame-pointer -fno-sanitize-recover=undefined
                         -Wno-deprecated-declarations)
  target_link_options(sandbox_sanitizers INTERFACE -fsanitize=address,undefined)
endif()

# Links sandbox_sanitizers into every compiled target defined in `dir` and below, except those
# with the property SANDBOX_NO_SANITIZERS. Nothing to link in a build without sanitizers (whose
# exported targets then stay exactly as written).
function(sandbox_link_sanitizers dir)
  if(NOT SANDBOX_SANITIZE AND NOT SANDBOX_TSAN AND NOT SANDBOX_FUZZ)
    return()
  endif()
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    get_target_property(opt_out ${t} SANDBOX_NO_SANITIZERS)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$"
       AND NOT opt_out)
      target_link_libraries(${t} PRIVATE $<BUILD_INTERFACE:sandbox_sanitizers>)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    sandbox_link_sanitizers(${sub})
  endforeach()
endfunction()
