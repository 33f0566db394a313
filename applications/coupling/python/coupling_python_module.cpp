// tessera._coupling: importing it registers the coupling application (its
// variables and the DemContactLoadCondition).
#include <pybind11/pybind11.h>

#include "coupling_application.h"

namespace py = pybind11;

PYBIND11_MODULE(_coupling, m) {
  // The kernel module owns the Python types this module's functions take.
  py::module_::import("tessera._tessera");
  tessera::coupling::RegisterCouplingApplication();
  m.doc() = "DE-FE coupling: particles loading and deforming FE structures";
}
