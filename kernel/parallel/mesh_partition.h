// METIS partitioning of a model part's mesh into the pieces that distributed
// runs own (one per MPI rank): every element belongs to one part, every node
// is owned by one part among those of its elements, and each part lists its
// ghost nodes (nodes of its elements that another part owns), which are the
// nodes whose values a halo exchange brings in.
//
// The elements are split by METIS_PartMeshDual: the dual graph links two
// elements that share a face (the fewest nodes of any face among the mesh's
// cell types: 3 for tetrahedra, 4 for hexahedra, 2 for plane cells, 1 for
// lines), and METIS balances the element counts within its default load
// imbalance (ufactor 30: the largest part at most 1.03 times the mean) while
// minimising the number of cut dual edges. The seed is fixed, so the same mesh
// gives the same partition on every run and rank. A node is owned by the
// lowest-numbered part among its elements' parts, a rule every rank evaluates
// alike without communication.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/core/types.h"
#include "kernel/parallel/mesh_graph.h"

namespace tessera {

class ModelPart;

struct MeshPartition {
  int parts = 1;
  // The model part's (the graph's) elements and nodes in its own order, with
  // their part.
  std::vector<IdType> element_ids;
  std::vector<std::int32_t> element_part;
  std::vector<IdType> node_ids;
  std::vector<std::int32_t> node_owner;
  // Per part: the ids of the nodes its elements use and another part owns,
  // ascending.
  std::vector<std::vector<IdType>> ghost_nodes;
  // Dual-graph edges between elements of different parts (METIS' objective).
  std::int64_t cut_faces = 0;
};

// Splits the elements of model_part into `parts` pieces. Throws, naming the
// model part, when parts < 1, when there are fewer elements than parts, when an
// element uses a node that is not in model_part, or when METIS fails.
MeshPartition PartitionMesh(ModelPart& model_part, int parts);
// The same for a mesh graph (MeshGraphOf, or MdpaReader::ReadMeshGraph: the
// same mesh gives the same graph either way, so the same partition); `name`
// stands for the model part in messages.
MeshPartition PartitionMesh(const MeshGraph& graph, int parts, const std::string& name);

}  // namespace tessera
