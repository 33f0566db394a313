// The plan of a rank's piece (the parts of each node, the conditions' parts),
// its removal from a whole model part, and the read of the piece alone.
#include "kernel/parallel/distribute_model_part.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model.h"
#include "kernel/model/model_part.h"

namespace tessera {

MeshPiece PlanMeshPiece(const MeshGraph& graph, const MeshPartition& partition, int rank,
                        const std::string& name) {
  TESSERA_CHECK(rank >= 0 && rank < partition.parts, "DistributeModelPart of model part '", name,
                "': rank ", rank, " is not a part of a partition into ", partition.parts);
  TESSERA_CHECK(graph.master_slave_constraints == 0, "DistributeModelPart of model part '", name,
                "': master-slave constraints are not distributed yet (it has ",
                graph.master_slave_constraints, ")");
  TESSERA_CHECK(partition.element_ids.size() == graph.NumberOfElements(),
                "DistributeModelPart of model part '", name, "': the partition has ",
                partition.element_ids.size(), " elements, the model part ",
                graph.NumberOfElements());

  // The graph's node ordinal of each id.
  const std::size_t nodes = graph.node_ids.size();
  std::unordered_map<IdType, std::size_t> ordinal;
  ordinal.reserve(nodes);
  for (std::size_t n = 0; n < nodes; ++n) ordinal.emplace(graph.node_ids[n], n);
  auto Ordinal = [&](IdType id, const char* kind, IdType entity) {
    auto it = ordinal.find(id);
    TESSERA_CHECK(it != ordinal.end(), "DistributeModelPart of model part '", name, "': ", kind,
                  " ", entity, " uses node ", id, ", which is not a node of the model part");
    return it->second;
  };

  // The parts whose elements use each node, ascending.
  std::vector<std::vector<std::int32_t>> parts_of(nodes);
  std::unordered_map<IdType, std::int32_t> element_part;
  element_part.reserve(partition.element_ids.size());
  for (std::size_t e = 0; e < partition.element_ids.size(); ++e)
    element_part.emplace(partition.element_ids[e], partition.element_part[e]);
  std::vector<std::uint8_t> keep(nodes, 0);
  MeshPiece piece;
  for (std::size_t e = 0; e < graph.NumberOfElements(); ++e) {
    auto it = element_part.find(graph.element_ids[e]);
    TESSERA_CHECK(it != element_part.end(), "DistributeModelPart of model part '", name,
                  "': element ", graph.element_ids[e], " is not in the partition");
    const std::int32_t part = it->second;
    for (std::int64_t k = graph.element_offsets[e]; k < graph.element_offsets[e + 1]; ++k) {
      const std::size_t n = Ordinal(graph.element_nodes[k], "element", graph.element_ids[e]);
      auto& parts = parts_of[n];
      if (std::find(parts.begin(), parts.end(), part) == parts.end())
        parts.insert(std::upper_bound(parts.begin(), parts.end(), part), part);
      if (part == rank) keep[n] = 1;
    }
    if (part == rank) {
      piece.kept.elements.push_back(graph.element_ids[e]);
      piece.local.element_positions.push_back(static_cast<std::int64_t>(e));
    }
  }

  for (std::size_t c = 0; c < graph.NumberOfConditions(); ++c) {
    // The parts common to all its nodes; a node of no element counts as part 0's.
    std::vector<std::int32_t> common;
    const IdType id = graph.condition_ids[c];
    for (std::int64_t k = graph.condition_offsets[c]; k < graph.condition_offsets[c + 1]; ++k) {
      std::vector<std::int32_t> parts =
          parts_of[Ordinal(graph.condition_nodes[k], "condition", id)];
      if (parts.empty()) parts = {0};
      if (k == graph.condition_offsets[c]) {
        common = parts;
      } else {
        std::vector<std::int32_t> both;
        std::set_intersection(common.begin(), common.end(), parts.begin(), parts.end(),
                              std::back_inserter(both));
        common.swap(both);
      }
    }
    TESSERA_CHECK(!common.empty(), "DistributeModelPart of model part '", name, "': condition ", id,
                  " has nodes that no single part's elements all use; it cannot be given to one "
                  "rank");
    if (common.front() != rank) continue;
    piece.kept.conditions.push_back(id);
    piece.local.condition_positions.push_back(static_cast<std::int64_t>(c));
    for (std::int64_t k = graph.condition_offsets[c]; k < graph.condition_offsets[c + 1]; ++k)
      keep[ordinal.at(graph.condition_nodes[k])] = 1;
  }
  // Nodes of no element or condition stay with part 0 (output and processes see them there).
  for (std::size_t n = 0; n < nodes; ++n)
    if (parts_of[n].empty() && rank == 0) keep[n] = 1;
  // Mesh geometries keep their nodes: removing a node a geometry uses is an error.
  for (IdType id : graph.geometry_nodes) keep[Ordinal(id, "geometry", 0)] = 1;

  LocalMesh& local = piece.local;
  local.rank = rank;
  std::map<std::int32_t, std::vector<IdType>> shared;
  std::unordered_map<IdType, std::int32_t> owner;
  owner.reserve(partition.node_ids.size());
  for (std::size_t n = 0; n < partition.node_ids.size(); ++n)
    owner.emplace(partition.node_ids[n], partition.node_owner[n]);
  for (std::size_t n = 0; n < nodes; ++n) {
    if (!keep[n]) continue;
    const IdType id = graph.node_ids[n];
    piece.kept.nodes.push_back(id);
    const auto& parts = parts_of[n];
    if (std::find(parts.begin(), parts.end(), rank) != parts.end())
      for (std::int32_t q : parts)
        if (q != rank) shared[q].push_back(id);
    auto it = owner.find(id);
    if (it != owner.end() ? it->second == rank : rank == 0) local.owned_nodes.push_back(id);
  }
  for (auto& [q, ids] : shared) {
    std::sort(ids.begin(), ids.end());
    local.neighbours.push_back(q);
    local.shared_nodes.push_back(std::move(ids));
  }
  std::sort(local.owned_nodes.begin(), local.owned_nodes.end());
  for (auto* ids : {&piece.kept.nodes, &piece.kept.elements, &piece.kept.conditions})
    std::sort(ids->begin(), ids->end());
  return piece;
}

LocalMesh DistributeModelPart(ModelPart& model_part, const MeshPartition& partition, int rank) {
  // The plan checks the rank, the constraints and the partition's elements.
  const std::string& name = model_part.Name();
  MeshPiece piece = PlanMeshPiece(MeshGraphOf(model_part), partition, rank, name);
  const MdpaPiece& kept = piece.kept;
  auto Kept = [](const std::vector<IdType>& ids, IdType id) {
    return std::binary_search(ids.begin(), ids.end(), id);
  };
  for (Element& element : model_part.Elements())
    element.Set(TO_ERASE, !Kept(kept.elements, element.Id()));
  for (Condition& condition : model_part.Conditions())
    condition.Set(TO_ERASE, !Kept(kept.conditions, condition.Id()));
  NodalDatabase& db = model_part.Nodal();
  for (IndexType i = 0; i < db.Size(); ++i) Node(&db, i).Set(TO_ERASE, !Kept(kept.nodes, db.Id(i)));
  model_part.RemoveElementsFlagged(TO_ERASE);
  model_part.RemoveConditionsFlagged(TO_ERASE);
  model_part.RemoveNodesFlagged(TO_ERASE);
  return std::move(piece.local);
}

LocalMesh ReadModelPartPiece(const std::string& path, ModelPart& model_part,
                             MdpaReadOptions options, int parts, int rank) {
  const std::string& name = model_part.Name();
  TESSERA_CHECK(&model_part.GetRootModelPart() == &model_part && model_part.NumberOfNodes() == 0 &&
                    model_part.NumberOfElements() == 0 && model_part.NumberOfConditions() == 0,
                "ReadModelPartPiece of '", path, "' into model part '", name,
                "': the model part must be an empty root");
  MeshPiece piece;
  {  // the graph and the partition are freed before the piece is read
    options.piece = nullptr;
    MeshGraph graph;
    MdpaReader(options).ReadMeshGraph(path, graph);
    piece = PlanMeshPiece(graph, PartitionMesh(graph, parts, name), rank, name);
  }
  options.piece = &piece.kept;
  MdpaReader(options).ReadFile(path, model_part);
  return std::move(piece.local);
}

}  // namespace tessera
