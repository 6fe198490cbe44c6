# Installs the library as the CMake package `gigaseg` with target gigaseg::gigaseg.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS gigaseg EXPORT gigasegTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(_dir core algorithms backends)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gigaseg/${_dir}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/gigaseg.hpp ${PROJECT_BINARY_DIR}/generated/gigaseg_config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gigaseg)
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
