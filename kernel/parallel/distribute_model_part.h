// Each rank's piece of a distributed run's mesh, two ways to the same
// model part:
// - DistributeModelPart: every rank has read the whole mesh and removes what
//   another rank keeps;
// - ReadModelPartPiece: every rank reads the file's connectivity alone (a
//   MeshGraph), partitions it, and then reads only the nodes, elements,
//   conditions and data it keeps: no rank holds the whole mesh.
// All ranks compute the same MeshPartition (PartitionMesh is deterministic)
// and the same plan (PlanMeshPiece): a rank keeps the elements of its part,
// the conditions assigned to it, and the nodes these use, and learns which
// nodes it shares with which rank.
//
// A condition goes to the lowest part among those whose elements use all its
// nodes (a face load to one of the parts of the element it loads), so that
// every condition is computed exactly once over the run. Nodes of no element
// or condition stay with part 0; the nodes of mesh geometries stay with every
// part.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/core/types.h"
#include "kernel/io/mdpa_reader.h"
#include "kernel/parallel/mesh_graph.h"
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
  // The kept elements' and conditions' positions in the whole mesh's lists
  // (the file's order), ascending: entry k is the piece's k-th entity. What
  // orders the ranks' entities as one process would (the coupled stage's
  // skin: distributed_coupling.py).
  std::vector<std::int64_t> element_positions;
  std::vector<std::int64_t> condition_positions;
};

// Removes from model_part's root (and so from every sub model part) what rank
// `rank` does not keep. model_part must be the root the partition was made
// of. Throws, naming the entity, where a condition's nodes are not all used
// by the elements of one part, and where the model part has master-slave
// constraints (not distributed yet).
LocalMesh DistributeModelPart(ModelPart& model_part, const MeshPartition& partition, int rank);

// What rank `rank` keeps of the graph's mesh (ids ascending) and its LocalMesh.
// Throws, naming `name`, where DistributeModelPart does.
struct MeshPiece {
  LocalMesh local;
  MdpaPiece kept;
};
MeshPiece PlanMeshPiece(const MeshGraph& graph, const MeshPartition& partition, int rank,
                        const std::string& name);

// Reads into model_part (an empty root) the piece of the .mdpa file at `path`
// that rank `rank` of `parts` keeps: the same model part, in the same order,
// as reading the whole file and DistributeModelPart. `options` as for
// MdpaReader (their `piece` is set here). The file is read twice (its
// connectivity, then the piece); no rank holds the whole mesh.
LocalMesh ReadModelPartPiece(const std::string& path, ModelPart& model_part,
                             MdpaReadOptions options, int parts, int rank);

}  // namespace tessera
