// tessera._laplace: importing it registers the laplace application.
#include <pybind11/pybind11.h>

#include "laplace_application.h"

PYBIND11_MODULE(_laplace, m) {
  // The kernel module must be loaded first: it owns the Python types
  // (Element, variables) that this application's objects are returned as.
  pybind11::module_::import("tessera._tessera");
  laplace::RegisterLaplaceApplication();
  m.doc() = "Example application: steady heat conduction on linear triangles";
}
