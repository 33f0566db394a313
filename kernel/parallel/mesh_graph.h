// MeshGraph: a mesh's connectivity by ids, without the model part — what
// METIS' partition and the plan of each rank's piece need. It is taken from
// a model part (MeshGraphOf) or read from a .mdpa file alone
// (MdpaReader::ReadMeshGraph), so that a distributed run can partition a
// mesh no rank has read whole: a few integers an element instead of the
// element, its nodes and their data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernel/core/types.h"

namespace tessera {

class ModelPart;

struct MeshGraph {
  // Nodes, elements and conditions in the model part's (the file's) order;
  // element e uses element_nodes[element_offsets[e] .. element_offsets[e + 1]).
  std::vector<IdType> node_ids;
  std::vector<IdType> element_ids;
  std::vector<std::int64_t> element_offsets{0};
  std::vector<IdType> element_nodes;
  std::vector<IdType> condition_ids;
  std::vector<std::int64_t> condition_offsets{0};
  std::vector<IdType> condition_nodes;
  // The nodes of the mesh geometries (every rank keeps them).
  std::vector<IdType> geometry_nodes;
  // The nodes two elements share to be neighbours in METIS' dual graph: the
  // smallest face of the elements' cell types (DualGraphCommonNodes); 0 while
  // no element was added.
  int common_nodes = 0;
  std::size_t master_slave_constraints = 0;

  std::size_t NumberOfElements() const { return element_ids.size(); }
  std::size_t NumberOfConditions() const { return condition_ids.size(); }
};

class GeometryType;

// The dual graph's face size of one cell type: its smallest face's node count
// (1 for points, lines and cells without faces).
int DualGraphCommonNodes(const GeometryType& type);

// The graph of model_part (its nodes, elements, conditions, geometries).
MeshGraph MeshGraphOf(ModelPart& model_part);

}  // namespace tessera
