# Header self-containment: one translation unit per header of core/, algorithms/, backends/ and engine/,
# each including only that header, compiled into an object library. A header that leans on an
# include its users happened to make first fails here. CUDA device-code headers (.cuh) are checked
# by the CUDA build that compiles them, and core/cuda/ only where the build has CUDA.
function(gigaseg_add_header_check target)
  file(GLOB_RECURSE _headers RELATIVE ${PROJECT_SOURCE_DIR}
       ${PROJECT_SOURCE_DIR}/core/*.hpp ${PROJECT_SOURCE_DIR}/algorithms/*.hpp ${PROJECT_SOURCE_DIR}/backends/*.hpp
       ${PROJECT_SOURCE_DIR}/engine/*.hpp)
  if(NOT Kokkos_ENABLE_CUDA)
    list(FILTER _headers EXCLUDE REGEX "^core/cuda/")  # the CUDA platform needs the CUDA runtime's headers
  endif()
  if(NOT GIGASEG_ENABLE_MPI)
    list(FILTER _headers EXCLUDE REGEX "^engine/mpi/")  # MPI's group needs mpi.h
  endif()
  set(_sources)
  foreach(_header IN LISTS _headers)
    string(MAKE_C_IDENTIFIER "${_header}" _name)
    set(_source ${CMAKE_CURRENT_BINARY_DIR}/header_check/${_name}.cpp)
    set(_text "#include \"gigaseg/${_header}\"\n#include \"gigaseg/${_header}\"  // and guarded against a second inclusion\n")
    if(EXISTS ${_source})
      file(READ ${_source} _old)
    else()
      set(_old "")
    endif()
    if(NOT _old STREQUAL _text)
      file(WRITE ${_source} "${_text}")
    endif()
    list(APPEND _sources ${_source})
  endforeach()
  add_library(${target} OBJECT ${_sources})
  target_link_libraries(${target} PRIVATE gigaseg)
  if(GIGASEG_ENABLE_MPI)
    target_link_libraries(${target} PRIVATE MPI::MPI_CXX)
  endif()
  list(LENGTH _headers _count)
  message(STATUS "gigaseg: header self-containment check over ${_count} headers (target ${target})")
endfunction()
