# sandbox_add_subdirectories(): add_subdirectory() for every direct subdirectory of the current
# source directory that has a CMakeLists.txt, in sorted order. Lets an area (engines, tools,
# bench, tests) grow by adding a directory without editing its parent.
function(sandbox_add_subdirectories)
  file(GLOB subdirs LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}
       ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT subdirs)
  foreach(sub ${subdirs})
    if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/${sub} AND
       EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${sub}/CMakeLists.txt)
      add_subdirectory(${sub})
    endif()
  endforeach()
endfunction()
