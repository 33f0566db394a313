# Installation and the CMake package config used by out-of-tree plugins:
#   find_package(Tessera REQUIRED)
#   tessera_add_application(myapp SOURCES ... BINDINGS ... PYTHON_DIR ...)
include(CMakePackageConfigHelpers)

install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/TesseraConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/TesseraConfig.cmake" INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/TesseraConfig.cmake" "${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/TesseraApplication.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
