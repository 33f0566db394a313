// Python bindings of the small value types (Quaternion; Array3 travels as numpy)
// and the Value conversions used by every binding file; small kernel utilities
// (the thread count, "did you mean" suggestions).
#include "kernel/core/suggestions.h"
#include "kernel/parallel/parallel_for.h"
#include "kernel/python/bindings.h"
#include "kernel/python/casters.h"

namespace py = pybind11;

namespace tessera::python {

Value ValueFromPython(const VariableBase& variable, py::handle object) {
  try {
    switch (variable.Kind()) {
      case ValueKind::Double:
        return object.cast<double>();
      case ValueKind::Int:
        if (py::isinstance<py::float_>(object)) {
          const double d = object.cast<double>();
          if (d != static_cast<int>(d)) break;
          return static_cast<int>(d);
        }
        return object.cast<int>();
      case ValueKind::Bool:
        return object.cast<bool>();
      case ValueKind::Array3:
        return object.cast<Array3>();
      case ValueKind::Vector:
        return Vector(object.cast<Eigen::VectorXd>());
      case ValueKind::Matrix:
        return Matrix(object.cast<Eigen::MatrixXd>());
      case ValueKind::String:
        return object.cast<std::string>();
      case ValueKind::Quaternion:
        if (py::isinstance<Quaternion>(object)) return object.cast<Quaternion>();
        {
          auto v = object.cast<std::vector<double>>();
          if (v.size() == 4) return Quaternion{v[0], v[1], v[2], v[3]};
        }
        break;
    }
  } catch (const py::cast_error&) {
  }
  TESSERA_ERROR("variable ", variable.Name(), " holds a ", ValueKindName(variable.Kind()),
                "; cannot take the Python value ", py::str(py::repr(object)).cast<std::string>());
}

py::object ValueToPython(const Value& value) {
  return std::visit([](const auto& v) -> py::object { return py::cast(v); }, value);
}

void AddCoreTypesToPython(py::module_& m) {
  py::class_<Quaternion>(m, "Quaternion", "Unit quaternion (w, x, y, z) for orientations")
      .def(py::init<>())
      .def(py::init([](double w, double x, double y, double z) {
             return Quaternion{w, x, y, z};
           }),
           py::arg("w"), py::arg("x"), py::arg("y"), py::arg("z"))
      .def_readwrite("W", &Quaternion::w)
      .def_readwrite("X", &Quaternion::x)
      .def_readwrite("Y", &Quaternion::y)
      .def_readwrite("Z", &Quaternion::z)
      .def("Rotate", &Quaternion::Rotate)
      .def("Conjugate", &Quaternion::Conjugate)
      .def("__mul__", [](const Quaternion& a, const Quaternion& b) { return a * b; })
      .def("__eq__", [](const Quaternion& a, const Quaternion& b) { return a == b; })
      .def("__repr__", [](const Quaternion& q) {
        return "Quaternion(" + std::to_string(q.w) + ", " + std::to_string(q.x) + ", " +
               std::to_string(q.y) + ", " + std::to_string(q.z) + ")";
      });
  m.def("SetParallelThreads", &SetParallelThreads, py::arg("count"),
        "Number of OpenMP threads the kernel's parallel loops use");
  m.def("GetParallelThreads", &ParallelThreads);
  // The kernel's suggestions for Python-side checks (stages' own keys), so
  // that every "did you mean" in Tessera picks the same names.
  m.def("DidYouMean", &DidYouMean, py::arg("name"), py::arg("candidates"),
        "\"; did you mean A or B?\" for the candidates closest to a mistyped name, or \"\"");
  // Kratos scripts build vectors with Array3(); here it is a numpy array.
  m.def(
      "Array3",
      [](py::object values) {
        if (values.is_none()) return Array3{};
        return values.cast<Array3>();
      },
      py::arg("values") = py::none(), "A 3-vector as a numpy array (zeros by default)");
}

}  // namespace tessera::python
