// The mesh partition of mesh_partition.h: METIS_PartMeshDual on the element
// connectivity of a MeshGraph, then node ownership and ghost lists derived
// from it.
#include "kernel/parallel/mesh_partition.h"

#include <metis.h>

#include <algorithm>
#include <string>
#include <unordered_map>

#include "kernel/core/error.h"
#include "kernel/model/model_part.h"

namespace tessera {
namespace {

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
  return PartitionMesh(MeshGraphOf(model_part), parts, model_part.FullName());
}

MeshPartition PartitionMesh(const MeshGraph& graph, int parts, const std::string& name) {
  TESSERA_CHECK(parts >= 1, "PartitionMesh of model part '", name,
                "': the number of parts must be at least 1, got ", parts);
  const std::size_t elements = graph.NumberOfElements();
  TESSERA_CHECK(elements >= static_cast<std::size_t>(parts), "PartitionMesh of model part '", name,
                "': ", elements, " elements cannot make ", parts,
                " parts (at least one element per part)");

  MeshPartition result;
  result.parts = parts;
  result.node_ids = graph.node_ids;
  result.element_ids = graph.element_ids;

  // The ordinal of each node id, and the element connectivity in METIS'
  // compressed form.
  std::unordered_map<IdType, idx_t> ordinal;
  ordinal.reserve(graph.node_ids.size());
  for (std::size_t n = 0; n < graph.node_ids.size(); ++n)
    ordinal.emplace(graph.node_ids[n], static_cast<idx_t>(n));
  std::vector<idx_t> eptr(graph.element_offsets.begin(), graph.element_offsets.end());
  std::vector<idx_t> eind(graph.element_nodes.size());
  for (std::size_t e = 0; e < elements; ++e)
    for (std::int64_t k = graph.element_offsets[e]; k < graph.element_offsets[e + 1]; ++k) {
      auto it = ordinal.find(graph.element_nodes[k]);
      TESSERA_CHECK(it != ordinal.end(), "PartitionMesh of model part '", name, "': element ",
                    graph.element_ids[e], " uses node ", graph.element_nodes[k],
                    ", which is not a node of the model part");
      eind[k] = it->second;
    }

  idx_t ne = static_cast<idx_t>(elements);
  idx_t nn = static_cast<idx_t>(result.node_ids.size());
  std::vector<idx_t> epart(elements, 0), npart(result.node_ids.size(), 0);
  if (parts > 1) {
    idx_t common = graph.common_nodes > 0 ? graph.common_nodes : 1;
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
  for (std::size_t e = 0; e < elements; ++e)
    for (idx_t k = eptr[e]; k < eptr[e + 1]; ++k)
      owner[eind[k]] = std::min(owner[eind[k]], result.element_part[e]);
  for (auto& o : owner)
    if (o == parts) o = 0;
  result.node_owner = std::move(owner);

  result.ghost_nodes.assign(parts, {});
  for (std::size_t e = 0; e < elements; ++e) {
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
