# tessera_add_python_module(NAME sources...)
#   Builds a pybind11 extension module that lands in the `tessera` Python package
#   (build/python/tessera in the build tree) and links the kernel.
#
# tessera_add_application(NAME
#                         SOURCES ...          C++ sources of the application library
#                         BINDINGS ...         pybind11 sources of its Python module
#                         PYTHON_DIR dir       its Python sources (stages, processes)
#                         [LINK_LIBRARIES ...])
#   Builds lib tessera_<name>.so, the extension module tessera._<name> and copies
#   PYTHON_DIR to the Python package as tessera/<name>/. Importing tessera.<name>
#   registers the application's variables, elements, conditions, laws and processes.
#   The same function is available to out-of-tree plugins through find_package(Tessera).
include_guard(GLOBAL)

if(NOT DEFINED TESSERA_PYTHON_DIR)
  set(TESSERA_PYTHON_DIR "${CMAKE_BINARY_DIR}/python")
endif()

function(tessera_add_python_module name)
  pybind11_add_module(${name} MODULE ${ARGN})
  if(TARGET tessera_kernel)
    target_link_libraries(${name} PRIVATE tessera_kernel)
  else()
    target_link_libraries(${name} PRIVATE Tessera::kernel)
  endif()
  set_target_properties(${name} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY "${TESSERA_PYTHON_DIR}/tessera"
    BUILD_RPATH "${CMAKE_BINARY_DIR}/lib;${TESSERA_LIBRARY_DIR}"
    # Installed as <prefix>/lib/tessera/python/tessera/<module>.so: the libraries
    # are three folders up, wherever the prefix is.
    INSTALL_RPATH "$ORIGIN/../../..;${TESSERA_LIBRARY_DIR}")
  install(TARGETS ${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/tessera/python/tessera)
endfunction()

function(tessera_add_application name)
  cmake_parse_arguments(APP "" "PYTHON_DIR" "SOURCES;BINDINGS;LINK_LIBRARIES" ${ARGN})
  set(lib tessera_${name})
  add_library(${lib} SHARED ${APP_SOURCES})
  # Calls inside the library may be inlined and made directly: with -fPIC and
  # the default -fsemantic-interposition every exported function (a grid's
  # cell coordinate, a face's contact test) was called through the PLT, even
  # from its own file. Nothing here is meant to be interposed.
  target_compile_options(${lib} PRIVATE -fno-semantic-interposition)
  if(TARGET tessera_kernel)
    target_link_libraries(${lib} PUBLIC tessera_kernel ${APP_LINK_LIBRARIES})
  else()
    target_link_libraries(${lib} PUBLIC Tessera::kernel ${APP_LINK_LIBRARIES})
  endif()
  # The application's own folder is its include root ("elements/x.h").
  target_include_directories(${lib} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
  set_target_properties(${lib} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/lib"
                                          INSTALL_RPATH "$ORIGIN;${TESSERA_LIBRARY_DIR}")
  install(TARGETS ${lib} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  if(APP_BINDINGS)
    tessera_add_python_module(_${name} ${APP_BINDINGS})
    target_link_libraries(_${name} PRIVATE ${lib})
  endif()
  if(APP_PYTHON_DIR)
    file(GLOB_RECURSE py_files CONFIGURE_DEPENDS RELATIVE "${APP_PYTHON_DIR}" "${APP_PYTHON_DIR}/*.py")
    set(outputs "")
    foreach(f IN LISTS py_files)
      set(out "${TESSERA_PYTHON_DIR}/tessera/${name}/${f}")
      add_custom_command(OUTPUT "${out}" COMMAND ${CMAKE_COMMAND} -E copy_if_different
                         "${APP_PYTHON_DIR}/${f}" "${out}" DEPENDS "${APP_PYTHON_DIR}/${f}")
      list(APPEND outputs "${out}")
    endforeach()
    add_custom_target(${lib}_python ALL DEPENDS ${outputs})
    install(DIRECTORY "${APP_PYTHON_DIR}/" DESTINATION ${CMAKE_INSTALL_LIBDIR}/tessera/python/tessera/${name}
            FILES_MATCHING PATTERN "*.py")
  endif()
endfunction()
