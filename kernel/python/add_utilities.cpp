// Python bindings of the kernel utilities that work on a whole model part:
// FindSkinFaces (kernel/utilities/skin_detection.h), whose faces go out as
// numpy arrays, one row per face, and PartitionMesh
// (kernel/parallel/mesh_partition.h), whose parts go out as numpy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>

#include "kernel/geometries/geometry_type.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/mesh_partition.h"
#include "kernel/python/bindings.h"
#include "kernel/utilities/skin_detection.h"

namespace py = pybind11;

namespace tessera::python {
namespace {

py::dict SkinFacesToPython(const std::vector<SkinFace>& faces) {
  const auto n = static_cast<py::ssize_t>(faces.size());
  int width = 0;
  for (const SkinFace& face : faces) width = std::max(width, face.nodes_number);
  py::array_t<std::int64_t> node_ids({n, static_cast<py::ssize_t>(width)});
  py::array_t<std::int32_t> nodes_number(n), local_faces(n);
  py::array_t<std::int64_t> parent_ids(n);
  py::list geometries;
  auto ids = node_ids.mutable_unchecked<2>();
  auto counts = nodes_number.mutable_unchecked<1>();
  auto locals = local_faces.mutable_unchecked<1>();
  auto parents = parent_ids.mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const SkinFace& face = faces[i];
    for (int k = 0; k < width; ++k) ids(i, k) = k < face.nodes_number ? face.node_ids[k] : -1;
    counts(i) = face.nodes_number;
    locals(i) = face.local_face;
    parents(i) = face.parent_id;
    geometries.append(py::str(std::string(face.geometry->Name())));
  }
  py::dict out;
  out["node_ids"] = node_ids;
  out["nodes_number"] = nodes_number;
  out["parent_ids"] = parent_ids;
  out["local_faces"] = local_faces;
  out["geometries"] = geometries;
  return out;
}

template <class T, class U>
py::array_t<T> ToArray(const std::vector<U>& values) {
  py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

py::dict MeshPartitionToPython(const MeshPartition& partition) {
  py::dict out;
  out["parts"] = partition.parts;
  out["element_ids"] = ToArray<std::int64_t>(partition.element_ids);
  out["element_part"] = ToArray<std::int32_t>(partition.element_part);
  out["node_ids"] = ToArray<std::int64_t>(partition.node_ids);
  out["node_owner"] = ToArray<std::int32_t>(partition.node_owner);
  py::list ghosts;
  for (const auto& part : partition.ghost_nodes) ghosts.append(ToArray<std::int64_t>(part));
  out["ghost_nodes"] = ghosts;
  out["cut_faces"] = partition.cut_faces;
  return out;
}

}  // namespace

void AddUtilitiesToPython(py::module_& m) {
  m.def(
      "FindSkinFaces",
      [](ModelPart& model_part) { return SkinFacesToPython(FindSkinFaces(model_part)); },
      py::arg("model_part"),
      "The boundary faces of the model part's elements, outward-oriented, ordered by parent "
      "element id then local face, as a dict of arrays with one row per face: 'node_ids' "
      "(n, max nodes) int64, padded with -1; 'nodes_number' (n,) int32; 'parent_ids' (n,) "
      "int64; 'local_faces' (n,) int32, the parent's face index, -1 for a membrane, which is "
      "its own face; 'geometries' a list of n names (Triangle3D3, Quadrilateral3D4, Line2D2)");
  m.def(
      "PartitionMesh",
      [](ModelPart& model_part, int parts) {
        return MeshPartitionToPython(PartitionMesh(model_part, parts));
      },
      py::arg("model_part"), py::arg("parts"),
      "The model part's elements split into `parts` pieces by METIS (dual graph of shared "
      "faces, fixed seed), as a dict: 'element_ids' and 'element_part' (the part of each "
      "element, model part order), 'node_ids' and 'node_owner' (the lowest part among each "
      "node's elements), 'ghost_nodes' (per part, the ascending ids of the nodes its elements "
      "use and another part owns), 'cut_faces' (dual-graph edges between parts), 'parts'");
}

}  // namespace tessera::python
