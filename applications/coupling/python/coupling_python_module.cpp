// tessera._coupling: importing it registers the coupling application (its
// variables and the DemContactLoadCondition), and gives the sphere–face
// intersections of the Area Distributed Method (thesis App. C) as functions
// returning dicts.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "applications/coupling/skin/skin_mirror.h"
#include "applications/dem/walls/circle_face_intersection.h"
#include "coupling_application.h"
#include "kernel/model/model_part.h"
#include "kernel/python/casters.h"

namespace py = pybind11;

namespace {

py::dict TriangleResultToDict(const tessera::dem::CircleTriangleIntersectionResult& r) {
  py::dict d;
  d["area"] = r.area;
  d["centroid"] = py::cast(r.centroid);
  d["case"] = tessera::dem::CaseLabel(r.intersection_case);
  d["weights"] = py::cast(r.weights);
  d["vertices_inside"] = r.vertices_inside;
  d["edges_crossed"] = r.edges_crossed;
  d["circle_centre"] = py::cast(r.circle_centre);
  d["circle_radius"] = r.circle_radius;
  return d;
}

}  // namespace

PYBIND11_MODULE(_coupling, m) {
  // The kernel module owns the Python types this module's functions take.
  py::module_::import("tessera._tessera");
  tessera::coupling::RegisterCouplingApplication();
  m.doc() = "DE-FE coupling: particles loading and deforming FE structures";

  py::class_<tessera::coupling::SkinMirror>(
      m, "SkinMirror",
      "The FE skin nodes and their mirrors in the DEM walls (skin/skin_mirror.h): MoveWalls()\n"
      "puts the mirrors where the structure is, TakeLoads() makes the walls' CONTACT_FORCES\n"
      "the structure's DEM_NODAL_FORCE and DEM_SURFACE_LOAD; rows in parallel.")
      .def(py::init<tessera::ModelPart&, tessera::ModelPart&, const std::vector<std::int64_t>&,
                    const std::vector<std::int64_t>&>(),
           py::arg("structure"), py::arg("walls"), py::arg("fe_rows"), py::arg("wall_rows"),
           py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
      .def("MoveWalls", &tessera::coupling::SkinMirror::MoveWalls)
      .def("TakeLoads", &tessera::coupling::SkinMirror::TakeLoads);
  m.def(
      "CircleTriangleIntersection",
      [](const tessera::Array3& centre, double radius, const tessera::Array3& v1,
         const tessera::Array3& v2, const tessera::Array3& v3) {
        return TriangleResultToDict(
            tessera::dem::CircleTriangleIntersection(centre, radius, v1, v2, v3));
      },
      py::arg("centre"), py::arg("radius"), py::arg("v1"), py::arg("v2"), py::arg("v3"),
      "The sphere (centre, radius) cut with the plane of the triangle (v1, v2, v3) is a circle\n"
      "(centre C_pi, radius a = sqrt(delta (2R - delta))); returns a dict with the area of\n"
      "circle & triangle, its centroid, the case of the thesis' Fig. C.4 ('a'..'h', 'apart',\n"
      "'none'), the barycentric weights of the centroid (sum 1), vertices_inside,\n"
      "edges_crossed, circle_centre and circle_radius (thesis App. C).");
  m.def(
      "CircleQuadrilateralIntersection",
      [](const tessera::Array3& centre, double radius, const tessera::Array3& v1,
         const tessera::Array3& v2, const tessera::Array3& v3, const tessera::Array3& v4) {
        const auto r =
            tessera::dem::CircleQuadrilateralIntersection(centre, radius, v1, v2, v3, v4);
        py::dict d;
        d["area"] = r.area;
        d["centroid"] = py::cast(r.centroid);
        d["weights"] = py::cast(r.weights);
        d["xi"] = r.xi;
        d["eta"] = r.eta;
        d["inverse_map_converged"] = r.inverse_map_converged;
        py::list subs;
        for (const auto& s : r.sub_triangles) subs.append(TriangleResultToDict(s));
        d["sub_triangles"] = subs;
        return d;
      },
      py::arg("centre"), py::arg("radius"), py::arg("v1"), py::arg("v2"), py::arg("v3"),
      py::arg("v4"),
      "The sphere cut with the 4-node face (v1..v4) split into the sub-triangles (v_i, v_i+1,\n"
      "x_cm) about the node average (thesis Fig. 4.12), composed with (C.1): a dict with area,\n"
      "centroid, the bilinear weights N_i(xi, eta) at the centroid (inverse map; the\n"
      "sub-triangles' piecewise-linear weights if it did not converge), xi, eta,\n"
      "inverse_map_converged and the four sub_triangles' dicts.");
  m.def(
      "CircleQuadrilateralAreaShare",
      [](const tessera::Array3& centre, double radius, const tessera::Array3& v1,
         const tessera::Array3& v2, const tessera::Array3& v3,
         const tessera::Array3& v4) -> py::object {
        const auto r = tessera::dem::CircleQuadrilateralAreaShare(centre, radius, v1, v2, v3, v4);
        if (!r.valid) return py::none();
        py::dict d;
        d["area"] = r.area;
        d["weights"] = py::cast(r.weights);
        d["sub_triangles_composed"] = r.sub_triangles_composed;
        return d;
      },
      py::arg("centre"), py::arg("radius"), py::arg("v1"), py::arg("v2"), py::arg("v3"),
      py::arg("v4"),
      "The area and weights of CircleQuadrilateralIntersection as the Area Distributed Method\n"
      "computes them: each sub-triangle whose circle lies wholly inside it or apart from it in\n"
      "closed form, the others by App. C's composition (sub_triangles_composed counts them).\n"
      "None where the composed area is zero or the inverse map fails (the full function's\n"
      "fallbacks apply there).");
}
