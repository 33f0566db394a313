// The tessera._tessera extension module: the kernel as seen from Python.
#include <pybind11/pybind11.h>

#include "kernel/core/error.h"
#include "kernel/python/bindings.h"

PYBIND11_MODULE(_tessera, m) {
  m.doc() = "Tessera kernel: variables, model parts, geometry, parameters, IO";
  namespace py = pybind11;
  // tessera.Error derives from RuntimeError so generic handlers still catch it.
  static py::exception<tessera::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tessera::Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  using namespace tessera::python;
  AddCoreTypesToPython(m);
  AddVariablesToPython(m);
  AddParametersToPython(m);
  AddGeometriesToPython(m);
  AddModelToPython(m);
  AddRegistryToPython(m);
  AddProcessesToPython(m);
  AddIoToPython(m);
  AddOutputToPython(m);
  AddUtilitiesToPython(m);
  AddCheckpointToPython(m);
  AddParallelToPython(m);
}
