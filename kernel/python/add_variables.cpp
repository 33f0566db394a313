// Python bindings of variables and flags. Every registered variable and flag is
// reachable by name: tessera.VELOCITY, tessera.GetVariable("VELOCITY").
#include "kernel/core/kernel_variables.h"
#include "kernel/core/variable_registry.h"
#include "kernel/python/bindings.h"
#include "kernel/python/casters.h"

namespace py = pybind11;

namespace tessera::python {

void AddVariablesToPython(py::module_& m) {
  py::enum_<ValueKind>(m, "ValueKind")
      .value("Double", ValueKind::Double)
      .value("Int", ValueKind::Int)
      .value("Bool", ValueKind::Bool)
      .value("Array3", ValueKind::Array3)
      .value("Vector", ValueKind::Vector)
      .value("Matrix", ValueKind::Matrix)
      .value("String", ValueKind::String)
      .value("Quaternion", ValueKind::Quaternion);

  py::class_<VariableBase, std::unique_ptr<VariableBase, py::nodelete>>(m, "VariableData")
      .def("Name", &VariableBase::Name)
      .def("Id", &VariableBase::Id)
      .def("Kind", &VariableBase::Kind)
      .def("IsComponent", &VariableBase::IsComponent)
      .def(
          "GetSourceVariable", [](const VariableBase& v) { return v.Source(); },
          py::return_value_policy::reference)
      .def("ComponentIndex", &VariableBase::ComponentIndex)
      .def("__repr__", [](const VariableBase& v) { return v.Name(); })
      .def("__str__", [](const VariableBase& v) { return v.Name(); })
      .def("__hash__", [](const VariableBase& v) { return v.Id(); })
      .def("__eq__", [](const VariableBase& a, const VariableBase& b) { return &a == &b; });

  // Kratos' Python class names for the typed variables.
  py::class_<Variable<double>, VariableBase, std::unique_ptr<Variable<double>, py::nodelete>>(
      m, "DoubleVariable");
  py::class_<Variable<int>, VariableBase, std::unique_ptr<Variable<int>, py::nodelete>>(
      m, "IntegerVariable");
  py::class_<Variable<bool>, VariableBase, std::unique_ptr<Variable<bool>, py::nodelete>>(
      m, "BoolVariable");
  py::class_<Variable<Array3>, VariableBase, std::unique_ptr<Variable<Array3>, py::nodelete>>(
      m, "Array1DVariable3");
  py::class_<Variable<Vector>, VariableBase, std::unique_ptr<Variable<Vector>, py::nodelete>>(
      m, "VectorVariable");
  py::class_<Variable<Matrix>, VariableBase, std::unique_ptr<Variable<Matrix>, py::nodelete>>(
      m, "MatrixVariable");
  py::class_<Variable<std::string>, VariableBase,
             std::unique_ptr<Variable<std::string>, py::nodelete>>(m, "StringVariable");
  py::class_<Variable<Quaternion>, VariableBase,
             std::unique_ptr<Variable<Quaternion>, py::nodelete>>(m, "QuaternionVariable");

  py::class_<Flag, std::unique_ptr<Flag, py::nodelete>>(m, "Flag")
      .def("Name", &Flag::Name)
      .def("__repr__", [](const Flag& f) { return f.Name(); });

  auto as_python = [](const VariableBase& v) -> py::object {
    switch (v.Kind()) {
      case ValueKind::Double:
        return py::cast(static_cast<const Variable<double>*>(&v),
                        py::return_value_policy::reference);
      case ValueKind::Int:
        return py::cast(static_cast<const Variable<int>*>(&v), py::return_value_policy::reference);
      case ValueKind::Bool:
        return py::cast(static_cast<const Variable<bool>*>(&v), py::return_value_policy::reference);
      case ValueKind::Array3:
        return py::cast(static_cast<const Variable<Array3>*>(&v),
                        py::return_value_policy::reference);
      case ValueKind::Vector:
        return py::cast(static_cast<const Variable<Vector>*>(&v),
                        py::return_value_policy::reference);
      case ValueKind::Matrix:
        return py::cast(static_cast<const Variable<Matrix>*>(&v),
                        py::return_value_policy::reference);
      case ValueKind::String:
        return py::cast(static_cast<const Variable<std::string>*>(&v),
                        py::return_value_policy::reference);
      case ValueKind::Quaternion:
        return py::cast(static_cast<const Variable<Quaternion>*>(&v),
                        py::return_value_policy::reference);
    }
    return py::none();
  };

  m.def(
      "GetVariable",
      [as_python](const std::string& name) {
        return as_python(VariableRegistry::Instance().Get(name));
      },
      "The registered variable of that name (error with suggestions if unknown)");
  m.def("HasVariable",
        [](const std::string& name) { return VariableRegistry::Instance().Find(name) != nullptr; });
  m.def(
      "GetFlag",
      [](const std::string& name) {
        const Flag* f = VariableRegistry::Instance().FindFlag(name);
        if (!f)
          TESSERA_ERROR("unknown flag '", name, "'",
                        VariableRegistry::Instance().Suggestions(name));
        return f;
      },
      py::return_value_policy::reference);
  m.def("VariableNames", [] { return VariableRegistry::Instance().Names(); });
  m.def("FlagNames", [] { return VariableRegistry::Instance().FlagNames(); });
  // {name: variable} of everything registered so far; packages export it as attributes.
  m.def("_registered_names", [as_python] {
    py::dict out;
    auto& registry = VariableRegistry::Instance();
    for (const std::string& name : registry.Names())
      out[py::str(name)] = as_python(registry.Get(name));
    for (const std::string& name : registry.FlagNames())
      out[py::str(name)] = py::cast(registry.FindFlag(name), py::return_value_policy::reference);
    return out;
  });
}

}  // namespace tessera::python
