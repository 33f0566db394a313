// MeshGraph of a model part, and the dual graph's face size of a cell type.
#include "kernel/parallel/mesh_graph.h"

#include <algorithm>

#include "kernel/geometries/geometry_type.h"
#include "kernel/model/model_part.h"

namespace tessera {

int DualGraphCommonNodes(const GeometryType& type) {
  if (type.LocalDimension() <= 1 || type.FacesNumber() == 0) return 1;
  int common = 0;
  for (const auto& face : type.FacesNodes()) {
    const int size = static_cast<int>(face.size());
    common = common == 0 ? size : std::min(common, size);
  }
  return common == 0 ? 1 : common;
}

MeshGraph MeshGraphOf(ModelPart& model_part) {
  MeshGraph graph;
  const NodalDatabase& db = model_part.Nodal();
  for (const Node& node : model_part.Nodes()) graph.node_ids.push_back(node.Id());

  const GeometryType* last = nullptr;
  for (const Element& element : model_part.Elements()) {
    const Geometry& geometry = element.GetGeometry();
    if (&geometry.Type() != last) {
      last = &geometry.Type();
      const int common = DualGraphCommonNodes(*last);
      graph.common_nodes = graph.common_nodes == 0 ? common : std::min(graph.common_nodes, common);
    }
    for (std::size_t k = 0; k < geometry.size(); ++k)
      graph.element_nodes.push_back(db.Id(geometry.NodeIndex(k)));
    graph.element_offsets.push_back(static_cast<std::int64_t>(graph.element_nodes.size()));
    graph.element_ids.push_back(element.Id());
  }
  for (const Condition& condition : model_part.Conditions()) {
    const Geometry& geometry = condition.GetGeometry();
    for (std::size_t k = 0; k < geometry.size(); ++k)
      graph.condition_nodes.push_back(db.Id(geometry.NodeIndex(k)));
    graph.condition_offsets.push_back(static_cast<std::int64_t>(graph.condition_nodes.size()));
    graph.condition_ids.push_back(condition.Id());
  }
  for (IndexType g : model_part.GeometryIndices()) {
    const Geometry& geometry = model_part.GeometryAt(g);
    for (std::size_t k = 0; k < geometry.size(); ++k)
      graph.geometry_nodes.push_back(db.Id(geometry.NodeIndex(k)));
  }
  graph.master_slave_constraints = model_part.NumberOfMasterSlaveConstraints();
  return graph;
}

}  // namespace tessera
