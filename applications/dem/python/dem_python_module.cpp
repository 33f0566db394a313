// tessera._dem: importing it registers the dem application (its variables
// registered when the library loaded; this adds its elements and conditions).
#include <pybind11/pybind11.h>

#include "applications/dem/dem_application.h"

PYBIND11_MODULE(_dem, m) {
  // The kernel module must be loaded first: it owns the Python types (Element,
  // Condition, variables) that this application's objects are returned as.
  pybind11::module_::import("tessera._tessera");
  tessera::dem::RegisterDemApplication();
  m.doc() = "Discrete elements: spheres, bonded spheres, clusters and rigid walls";
}
