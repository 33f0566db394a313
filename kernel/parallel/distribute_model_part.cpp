// DistributeModelPart: the parts of each node, the conditions' parts, and the
// removal of what another rank keeps.
#include "kernel/parallel/distribute_model_part.h"

#include <algorithm>
#include <map>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera {

LocalMesh DistributeModelPart(ModelPart& model_part, const MeshPartition& partition, int rank) {
  const std::string& name = model_part.Name();
  TESSERA_CHECK(rank >= 0 && rank < partition.parts, "DistributeModelPart of model part '", name,
                "': rank ", rank, " is not a part of a partition into ", partition.parts);
  TESSERA_CHECK(model_part.NumberOfMasterSlaveConstraints() == 0,
                "DistributeModelPart of model part '", name,
                "': master-slave constraints are not distributed yet (it has ",
                model_part.NumberOfMasterSlaveConstraints(), ")");
  NodalDatabase& db = model_part.Nodal();
  TESSERA_CHECK(partition.element_ids.size() == model_part.NumberOfElements(),
                "DistributeModelPart of model part '", name, "': the partition has ",
                partition.element_ids.size(), " elements, the model part ",
                model_part.NumberOfElements());

  // The parts whose elements use each node (root index), ascending.
  std::vector<std::vector<std::int32_t>> parts_of(db.Size());
  std::map<IdType, std::int32_t> element_part;
  for (std::size_t e = 0; e < partition.element_ids.size(); ++e)
    element_part.emplace(partition.element_ids[e], partition.element_part[e]);
  for (Element& element : model_part.Elements()) {
    auto it = element_part.find(element.Id());
    TESSERA_CHECK(it != element_part.end(), "DistributeModelPart of model part '", name,
                  "': element ", element.Id(), " is not in the partition");
    const Geometry& g = element.GetGeometry();
    for (std::size_t k = 0; k < g.size(); ++k) {
      auto& parts = parts_of[g.NodeIndex(k)];
      if (std::find(parts.begin(), parts.end(), it->second) == parts.end()) {
        parts.insert(std::upper_bound(parts.begin(), parts.end(), it->second), it->second);
      }
    }
    element.Set(TO_ERASE, it->second != rank);
  }

  std::vector<std::uint8_t> keep(db.Size(), 0);
  for (Element& element : model_part.Elements())
    if (!element.Is(TO_ERASE)) {
      const Geometry& g = element.GetGeometry();
      for (std::size_t k = 0; k < g.size(); ++k) keep[g.NodeIndex(k)] = 1;
    }
  for (Condition& condition : model_part.Conditions()) {
    const Geometry& g = condition.GetGeometry();
    // The parts common to all its nodes; a node of no element counts as part 0's.
    std::vector<std::int32_t> common;
    for (std::size_t k = 0; k < g.size(); ++k) {
      std::vector<std::int32_t> parts = parts_of[g.NodeIndex(k)];
      if (parts.empty()) parts = {0};
      if (k == 0) {
        common = parts;
      } else {
        std::vector<std::int32_t> both;
        std::set_intersection(common.begin(), common.end(), parts.begin(), parts.end(),
                              std::back_inserter(both));
        common.swap(both);
      }
    }
    TESSERA_CHECK(!common.empty(), "DistributeModelPart of model part '", name, "': condition ",
                  condition.Id(),
                  " has nodes that no single part's elements all use; it cannot be given to one "
                  "rank");
    condition.Set(TO_ERASE, common.front() != rank);
    if (common.front() == rank)
      for (std::size_t k = 0; k < g.size(); ++k) keep[g.NodeIndex(k)] = 1;
  }
  // Nodes of no element or condition stay with part 0 (output and processes see them there).
  for (IndexType i = 0; i < db.Size(); ++i)
    if (parts_of[i].empty() && rank == 0) keep[i] = 1;
  // Mesh geometries keep their nodes: removing a node a geometry uses is an error.
  for (IndexType g : model_part.GeometryIndices()) {
    const Geometry& geometry = model_part.GeometryAt(g);
    for (std::size_t k = 0; k < geometry.size(); ++k) keep[geometry.NodeIndex(k)] = 1;
  }

  LocalMesh local;
  local.rank = rank;
  std::map<std::int32_t, std::vector<IdType>> shared;
  std::map<IdType, std::int32_t> owner;
  for (std::size_t n = 0; n < partition.node_ids.size(); ++n)
    owner.emplace(partition.node_ids[n], partition.node_owner[n]);
  for (IndexType i = 0; i < db.Size(); ++i) {
    if (!keep[i]) continue;
    const auto& parts = parts_of[i];
    if (std::find(parts.begin(), parts.end(), rank) != parts.end())
      for (std::int32_t q : parts)
        if (q != rank) shared[q].push_back(db.Id(i));
    auto it = owner.find(db.Id(i));
    if (it != owner.end() ? it->second == rank : rank == 0) local.owned_nodes.push_back(db.Id(i));
  }
  for (auto& [q, ids] : shared) {
    std::sort(ids.begin(), ids.end());
    local.neighbours.push_back(q);
    local.shared_nodes.push_back(std::move(ids));
  }
  std::sort(local.owned_nodes.begin(), local.owned_nodes.end());

  for (IndexType i = 0; i < db.Size(); ++i) Node(&db, i).Set(TO_ERASE, !keep[i]);
  model_part.RemoveElementsFlagged(TO_ERASE);
  model_part.RemoveConditionsFlagged(TO_ERASE);
  model_part.RemoveNodesFlagged(TO_ERASE);
  return local;
}

}  // namespace tessera
