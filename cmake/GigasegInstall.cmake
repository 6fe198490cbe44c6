# Installs the library as the CMake package `gigaseg` with target gigaseg::gigaseg.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS gigaseg EXPORT gigasegTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Public headers only: the umbrella gigaseg.hpp, core/, the algorithms' public headers,
# algorithms/pipelines/ and engine/, and whatever those include (found by following their #include lines), so
# the algorithms' implementations in detail/ and the backends stay inside the library.
set(_pending gigaseg.hpp)
file(GLOB _public RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/algorithms/*.hpp
     ${PROJECT_SOURCE_DIR}/algorithms/pipelines/*.hpp ${PROJECT_SOURCE_DIR}/engine/*.hpp)
if(GIGASEG_ENABLE_MPI)
  list(APPEND _public engine/mpi/mpi_group.hpp)
endif()
file(GLOB_RECURSE _core RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/core/*.hpp)
list(APPEND _pending ${_public} ${_core})
set(_installed)
while(_pending)
  list(POP_FRONT _pending _header)
  if(_header IN_LIST _installed OR NOT EXISTS ${PROJECT_SOURCE_DIR}/${_header})
    continue()
  endif()
  list(APPEND _installed ${_header})
  file(STRINGS ${PROJECT_SOURCE_DIR}/${_header} _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]gigaseg/")
  foreach(_line IN LISTS _includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]gigaseg/([^>\"]*)[>\"].*" "\\1" _included "${_line}")
    list(APPEND _pending ${_included})
  endforeach()
endwhile()
foreach(_header IN LISTS _installed)
  get_filename_component(_dir ${_header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${_header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gigaseg/${_dir})
endforeach()
install(FILES ${GIGASEG_BUILD_INCLUDE}/gigaseg/gigaseg_config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gigaseg)
if(TARGET gigaseg_cli)
  install(TARGETS gigaseg_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT gigasegTargets NAMESPACE gigaseg:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gigaseg)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gigasegConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gigasegConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gigaseg)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gigasegConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gigasegConfig.cmake ${PROJECT_BINARY_DIR}/gigasegConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gigaseg)
