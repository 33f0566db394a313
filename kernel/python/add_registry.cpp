// Python bindings of the component registry: which elements, conditions, laws
// and processes exist, and which application registered them.
#include <pybind11/stl.h>

#include "kernel/geometries/geometry_type.h"
#include "kernel/model/model.h"
#include "kernel/parameters/parameters.h"
#include "kernel/python/bindings.h"
#include "kernel/registry/registry.h"

namespace py = pybind11;

namespace tessera::python {

void AddRegistryToPython(py::module_& m) {
  auto r = m.def_submodule("Registry", "Names that input files may use");
  r.def("HasElement", [](const std::string& n) { return Registry::Instance().HasElement(n); });
  r.def("HasCondition", [](const std::string& n) { return Registry::Instance().HasCondition(n); });
  r.def("HasConstitutiveLaw",
        [](const std::string& n) { return Registry::Instance().HasConstitutiveLaw(n); });
  r.def("HasProcess", [](const std::string& n) { return Registry::Instance().HasProcess(n); });
  r.def("ElementNames", [] { return Registry::Instance().ElementNames(); });
  r.def("ConditionNames", [] { return Registry::Instance().ConditionNames(); });
  r.def("ConstitutiveLawNames", [] { return Registry::Instance().ConstitutiveLawNames(); });
  r.def("ProcessNames", [] { return Registry::Instance().ProcessNames(); });
  r.def("Applications", [] { return Registry::Instance().Applications(); });
  r.def("ApplicationOf",
        [](const std::string& n) { return Registry::Instance().ApplicationOf(n); });
  r.def("ElementGeometryName", [](const std::string& n) {
    return std::string(Registry::Instance().ElementGeometry(n).Name());
  });
  r.def("ConditionGeometryName", [](const std::string& n) {
    return std::string(Registry::Instance().ConditionGeometry(n).Name());
  });
}

}  // namespace tessera::python
