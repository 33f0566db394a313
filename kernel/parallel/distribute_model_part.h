// DistributeModelPart: turns every rank's copy of a whole mesh into its piece
// of a distributed run. All ranks read the same deck and compute the same
// MeshPartition (PartitionMesh is deterministic); each then keeps the
// elements of its part, the conditions assigned to it, and the nodes these
// use, and learns which nodes it shares with which rank.
//
// A condition goes to the lowest part among those whose elements use all its
// nodes (a face load to one of the parts of the element it loads), so that
// every condition is computed exactly once over the run.
#pragma once

#include <vector>

#include "kernel/core/types.h"
#include "kernel/parallel/mesh_partition.h"

namespace tessera {

class ModelPart;

struct LocalMesh {
  int rank = 0;
  // Ranks sharing nodes with this one, ascending, and per such rank the
  // ascending ids of the shared nodes.
  std::vector<int> neighbours;
  std::vector<std::vector<IdType>> shared_nodes;
  // Ascending ids of the kept nodes this rank owns (partition.node_owner).
  std::vector<IdType> owned_nodes;
};

// Removes from model_part's root (and so from every sub model part) what rank
// `rank` does not keep. model_part must be the root the partition was made
// of. Throws, naming the entity, where a condition's nodes are not all used
// by the elements of one part, and where the model part has master-slave
// constraints (not distributed yet).
LocalMesh DistributeModelPart(ModelPart& model_part, const MeshPartition& partition, int rank);

}  // namespace tessera
