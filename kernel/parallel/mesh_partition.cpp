// The mesh partition of mesh_partition.h: METIS_PartMeshDual on the element
// connectivity, then node ownership and ghost lists derived from it.
#include "kernel/parallel/mesh_partition.h"

#include <metis.h>

#include <algorithm>
#include <limits>
#include <string>

#include "kernel/core/error.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/model/model_part.h"

namespace tessera {
namespace {

// The nodes two elements must share to be neighbours in the dual graph: the
// smallest face of any cell type of the mesh (a line's "face" is a node).
idx_t CommonNodes(ModelPart& model_part) {
  idx_t common = std::numeric_limits<idx_t>::max();
  const GeometryType* last = nullptr;
  for (const Element& element : model_part.Elements()) {
    const GeometryType& type = element.GetGeometry().Type();
    if (&type == last) continue;
    last = &type;
    if (type.LocalDimension() <= 1 || type.FacesNumber() == 0) {
      common = 1;
      continue;
    }
    for (const auto& face : type.FacesNodes())
      common = std::min(common, static_cast<idx_t>(face.size()));
  }
  return common == std::numeric_limits<idx_t>::max() ? 1 : common;
}

std::string MetisStatus(int status) {
  switch (status) {
    case METIS_ERROR_INPUT:
      return "an input error";
    case METIS_ERROR_MEMORY:
      return "out of memory";
    default:
      return "an error";
  }
}

}  // namespace

MeshPartition PartitionMesh(ModelPart& model_part, int parts) {
  const std::string name = model_part.FullName();
  TESSERA_CHECK(parts >= 1, "PartitionMesh of model part '", name,
                "': the number of parts must be at least 1, got ", parts);
  auto elements = model_part.Elements();
  TESSERA_CHECK(elements.size() >= static_cast<std::size_t>(parts), "PartitionMesh of model part '",
                name, "': ", elements.size(), " elements cannot make ", parts,
                " parts (at least one element per part)");

  MeshPartition result;
  result.parts = parts;
  const NodalDatabase& db = model_part.Nodal();

  // The model part's nodes in its order, and the ordinal of each root node.
  constexpr idx_t kAbsent = -1;
  std::vector<idx_t> ordinal(db.Size(), kAbsent);
  for (const Node& node : model_part.Nodes()) {
    ordinal[node.Index()] = static_cast<idx_t>(result.node_ids.size());
    result.node_ids.push_back(node.Id());
  }

  // The element connectivity in METIS' compressed form.
  std::vector<idx_t> eptr{0}, eind;
  eptr.reserve(elements.size() + 1);
  result.element_ids.reserve(elements.size());
  for (const Element& element : elements) {
    const Geometry& geometry = element.GetGeometry();
    for (std::size_t k = 0; k < geometry.size(); ++k) {
      const idx_t local = ordinal[geometry.NodeIndex(k)];
      TESSERA_CHECK(local != kAbsent, "PartitionMesh of model part '", name, "': element ",
                    element.Id(), " uses node ", db.Id(geometry.NodeIndex(k)),
                    ", which is not a node of the model part");
      eind.push_back(local);
    }
    eptr.push_back(static_cast<idx_t>(eind.size()));
    result.element_ids.push_back(element.Id());
  }

  idx_t ne = static_cast<idx_t>(elements.size());
  idx_t nn = static_cast<idx_t>(result.node_ids.size());
  std::vector<idx_t> epart(elements.size(), 0), npart(result.node_ids.size(), 0);
  if (parts > 1) {
    idx_t common = CommonNodes(model_part);
    idx_t nparts = parts;
    idx_t objval = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 0;
    options[METIS_OPTION_NUMBERING] = 0;
    const int status =
        METIS_PartMeshDual(&ne, &nn, eptr.data(), eind.data(), nullptr, nullptr, &common, &nparts,
                           nullptr, options, &objval, epart.data(), npart.data());
    TESSERA_CHECK(status == METIS_OK, "PartitionMesh of model part '", name,
                  "': METIS_PartMeshDual reported ", MetisStatus(status), " (", ne, " elements, ",
                  nn, " nodes, ", parts, " parts)");
    result.cut_faces = objval;
  }
  result.element_part.assign(epart.begin(), epart.end());

  // Owner: the lowest part among the node's elements (a node of no element is
  // owned by part 0). Ghosts: the nodes of a part's elements owned elsewhere.
  std::vector<std::int32_t> owner(result.node_ids.size(), parts);
  for (std::size_t e = 0; e < elements.size(); ++e)
    for (idx_t k = eptr[e]; k < eptr[e + 1]; ++k)
      owner[eind[k]] = std::min(owner[eind[k]], result.element_part[e]);
  for (auto& o : owner)
    if (o == parts) o = 0;
  result.node_owner = std::move(owner);

  result.ghost_nodes.assign(parts, {});
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const std::int32_t part = result.element_part[e];
    for (idx_t k = eptr[e]; k < eptr[e + 1]; ++k)
      if (result.node_owner[eind[k]] != part)
        result.ghost_nodes[part].push_back(result.node_ids[eind[k]]);
  }
  for (auto& ghosts : result.ghost_nodes) {
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  }
  return result;
}

}  // namespace tessera
