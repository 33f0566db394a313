// Python bindings of the geometry types: the GeometryFamily enum, GeometryType
// (the shared static instances, handed out by reference and read-only), the
// sphere measures and the lookup by .mdpa name.
//
// Node coordinates come in as an (n, 3) numpy array (an (n, 2) array is taken
// as z = 0), local points as a sequence of up to 3 numbers; vectors and
// matrices go out as numpy arrays.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/geometries/sphere.h"
#include "kernel/python/bindings.h"

namespace py = pybind11;

namespace tessera::python {

namespace {

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::vector<Array3> ToPoints(const GeometryType& type, const DoubleArray& points) {
  TESSERA_CHECK(points.ndim() == 2 && (points.shape(1) == 3 || points.shape(1) == 2), type.Name(),
                ": node coordinates must be an (n, 3) array, got one of shape ",
                points.ndim() >= 1 ? points.shape(0) : 0, " x ",
                points.ndim() >= 2 ? points.shape(1) : 0);
  const auto p = points.unchecked<2>();
  std::vector<Array3> out(p.shape(0));
  for (py::ssize_t a = 0; a < p.shape(0); ++a)
    for (py::ssize_t i = 0; i < p.shape(1); ++i) out[a][i] = p(a, i);
  return out;
}

Array3 ToArray3(const DoubleArray& values, const char* what) {
  TESSERA_CHECK(values.ndim() <= 1 && values.size() <= 3, what,
                " must be a sequence of at most 3 numbers, got ", values.size());
  Array3 out;
  const double* data = values.data();
  for (py::ssize_t i = 0; i < values.size(); ++i) out[i] = data[i];
  return out;
}

// A local point, or the centre of the reference cell for None.
Array3 ToLocal(const GeometryType& type, const py::object& local) {
  if (local.is_none()) return type.LocalCenter();
  return ToArray3(local.cast<DoubleArray>(), "a local point");
}

py::array_t<double> ToNumpy(const Array3& v) {
  py::array_t<double> out(3);
  for (int i = 0; i < 3; ++i) out.mutable_at(i) = v[i];
  return out;
}

py::array_t<double> ToNumpy(const std::vector<Array3>& points) {
  py::array_t<double> out({static_cast<py::ssize_t>(points.size()), py::ssize_t{3}});
  auto o = out.mutable_unchecked<2>();
  for (std::size_t a = 0; a < points.size(); ++a)
    for (int i = 0; i < 3; ++i) o(a, i) = points[a][i];
  return out;
}

}  // namespace

void AddGeometriesToPython(py::module_& m) {
  py::enum_<GeometryFamily>(m, "GeometryFamily")
      .value("Point", GeometryFamily::Point)
      .value("Line", GeometryFamily::Line)
      .value("Triangle", GeometryFamily::Triangle)
      .value("Quadrilateral", GeometryFamily::Quadrilateral)
      .value("Tetrahedron", GeometryFamily::Tetrahedron)
      .value("Hexahedron", GeometryFamily::Hexahedron)
      .value("Sphere", GeometryFamily::Sphere);

  using T = GeometryType;
  const auto none = py::none();
  py::class_<T>(m, "GeometryType",
                "A kind of cell: shape functions, integration rules, topology and the "
                "geometry of a cell given its node coordinates (an (n, 3) array).")
      .def("Name", [](const T& t) { return std::string(t.Name()); })
      .def("Family", &T::Family)
      .def("LocalDimension", &T::LocalDimension)
      .def("WorkingSpaceDimension", &T::WorkingSpaceDimension)
      .def("PointsNumber", &T::PointsNumber)
      .def("EdgesNumber", &T::EdgesNumber)
      .def("FacesNumber", &T::FacesNumber)
      .def(
          "ShapeFunctionsValues",
          [](const T& t, const py::object& local) {
            return t.ShapeFunctionsValues(ToLocal(t, local));
          },
          py::arg("local"))
      .def(
          "ShapeFunctionsLocalGradients",
          [](const T& t, const py::object& local) {
            Matrix dN;
            t.ShapeFunctionsLocalGradients(ToLocal(t, local), dN);
            return dN;
          },
          py::arg("local"))
      .def("LocalCoordinatesOfNodes",
           [](const T& t) { return ToNumpy(t.LocalCoordinatesOfNodes()); })
      .def("LocalCenter", [](const T& t) { return ToNumpy(t.LocalCenter()); })
      .def(
          "IntegrationPoints",
          [](const T& t, std::optional<int> order) {
            py::list out;
            for (const IntegrationPoint& ip :
                 t.IntegrationPoints(order.value_or(t.DefaultIntegrationOrder())))
              out.append(
                  py::make_tuple(py::make_tuple(ip.local[0], ip.local[1], ip.local[2]), ip.weight));
            return out;
          },
          py::arg("order") = none,
          "List of ((xi, eta, zeta), weight); the default order if none is given.")
      .def("ExactPolynomialDegree", &T::ExactPolynomialDegree, py::arg("order"))
      .def("DefaultIntegrationOrder", &T::DefaultIntegrationOrder)
      .def("MaxIntegrationOrder", &T::MaxIntegrationOrder)
      .def("EdgesNodes", &T::EdgesNodes)
      .def("FacesNodes", &T::FacesNodes)
      .def("FaceFamily", &T::FaceFamily, py::arg("face"))
      .def(
          "GlobalCoordinates",
          [](const T& t, const DoubleArray& points, const py::object& local) {
            return ToNumpy(t.GlobalCoordinates(ToPoints(t, points), ToLocal(t, local)));
          },
          py::arg("points"), py::arg("local"))
      .def(
          "Jacobian",
          [](const T& t, const DoubleArray& points, const py::object& local) {
            Matrix J;
            t.Jacobian(ToPoints(t, points), ToLocal(t, local), J);
            return J;
          },
          py::arg("points"), py::arg("local"))
      .def(
          "DeterminantOfJacobian",
          [](const T& t, const DoubleArray& points, const py::object& local) {
            return t.DeterminantOfJacobian(ToPoints(t, points), ToLocal(t, local));
          },
          py::arg("points"), py::arg("local"))
      .def(
          "ShapeFunctionsGradients",
          [](const T& t, const DoubleArray& points, const py::object& local) {
            Matrix dN_dX;
            double detJ = 0.0;
            t.ShapeFunctionsGradients(ToPoints(t, points), ToLocal(t, local), dN_dX, detJ);
            return py::make_tuple(dN_dX, detJ);
          },
          py::arg("points"), py::arg("local"), "(dN_dX, detJ) at a local point.")
      .def(
          "DomainSize",
          [](const T& t, const DoubleArray& points) { return t.DomainSize(ToPoints(t, points)); },
          py::arg("points"))
      .def(
          "Center",
          [](const T& t, const DoubleArray& points) {
            return ToNumpy(t.Center(ToPoints(t, points)));
          },
          py::arg("points"))
      .def(
          "AreaNormal",
          [](const T& t, const DoubleArray& points, const py::object& local) {
            return ToNumpy(t.AreaNormal(ToPoints(t, points), ToLocal(t, local)));
          },
          py::arg("points"), py::arg("local") = none, "At the local centre if local is None.")
      .def(
          "UnitNormal",
          [](const T& t, const DoubleArray& points, const py::object& local) {
            return ToNumpy(t.UnitNormal(ToPoints(t, points), ToLocal(t, local)));
          },
          py::arg("points"), py::arg("local") = none, "At the local centre if local is None.")
      .def(
          "IsInsideLocalSpace",
          [](const T& t, const py::object& local, double tolerance) {
            return t.IsInsideLocalSpace(ToLocal(t, local), tolerance);
          },
          py::arg("local"), py::arg("tolerance") = 1e-10)
      .def(
          "PointLocalCoordinates",
          [](const T& t, const DoubleArray& points, const DoubleArray& global) {
            Array3 local;
            const bool converged =
                t.PointLocalCoordinates(ToPoints(t, points), ToArray3(global, "a point"), local);
            return py::make_tuple(converged, ToNumpy(local));
          },
          py::arg("points"), py::arg("global_point"),
          "(converged, local) of the inverse map (the projection for lines and surfaces).")
      .def(
          "IsInside",
          [](const T& t, const DoubleArray& points, const DoubleArray& global, double tolerance) {
            Array3 local;
            const bool inside =
                t.IsInside(ToPoints(t, points), ToArray3(global, "a point"), local, tolerance);
            return py::make_tuple(inside, ToNumpy(local));
          },
          py::arg("points"), py::arg("global_point"), py::arg("tolerance") = 1e-10,
          "(inside, local): whether the point lies in the cell, and its local coordinates.")
      .def("__repr__", [](const T& t) { return "<GeometryType " + std::string(t.Name()) + ">"; });

  // The sphere type comes out of GetGeometryType("Sphere3D1") as this subclass
  // (pybind11 downcasts polymorphic types), with the ball measures as static methods.
  py::class_<Sphere3D1, GeometryType>(m, "Sphere3D1")
      .def_static("SphereVolume", &Sphere3D1::SphereVolume, py::arg("radius"))
      .def_static("SphereSurfaceArea", &Sphere3D1::SphereSurfaceArea, py::arg("radius"))
      .def_static("SphereCrossSectionArea", &Sphere3D1::SphereCrossSectionArea, py::arg("radius"))
      .def_static("SphereRadiusFromVolume", &Sphere3D1::SphereRadiusFromVolume, py::arg("volume"))
      .def_static("SphereMomentOfInertia", &Sphere3D1::SphereMomentOfInertia, py::arg("mass"),
                  py::arg("radius"));

  // The instances are static and immutable: hand out references, never copies.
  m.def(
      "GetGeometryType", [](const std::string& name) { return &GetGeometryType(name); },
      py::arg("name"), py::return_value_policy::reference,
      "The geometry type of a .mdpa name such as 'Triangle2D3'; raises for unknown names.");
  m.def(
      "FindGeometryType", [](const std::string& name) { return FindGeometryType(name); },
      py::arg("name"), py::return_value_policy::reference,
      "The geometry type of a .mdpa name, or None if unknown.");
  m.def("GeometryTypeNames", &GeometryTypeNames, "The known .mdpa geometry names.");
}

}  // namespace tessera::python
