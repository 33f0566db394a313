// Removing spheres and rigid clusters from a running strategy (see
// row_removal.h).
#include "applications/dem/particles/row_removal.h"

#include <algorithm>

#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/particles/rigid_clusters.h"
#include "kernel/core/flags.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {

RowsToKeep RowsOutsideBox(const ParticleStorage& particles, const RigidClusters& clusters,
                          const Array3& box_min, const Array3& box_max) {
  const auto outside = [&](const Array3& x) { return OutsideBox(x, box_min, box_max); };
  RowsToKeep out;
  out.rows.assign(particles.size(), 1);
  out.clusters.assign(clusters.size(), 1);
  for (std::size_t i = 0; i < particles.size(); ++i)
    if (particles.cluster[i] == 0 && outside(particles.position[i]))
      out.rows[i] = 0, out.any_row = true;
  for (std::size_t k = 0; k < clusters.size(); ++k) {
    if (!outside(clusters.centre[k])) continue;
    out.clusters[k] = 0;
    out.any_cluster = out.any_row = true;
    for (std::uint32_t m = 0; m < clusters.row_count[k]; ++m)
      out.rows[clusters.first_row[k] + m] = 0;
  }
  return out;
}

std::vector<std::uint32_t> RemoveRows(ModelPart& spheres, ParticleStorage& particles,
                                      RigidClusters& clusters,
                                      const std::vector<std::uint8_t>& keep) {
  const std::size_t n = particles.size();
  std::vector<std::uint32_t> new_index(n, kRemovedRow);
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i]) new_index[i] = next++;
  std::vector<IndexType> removed_nodes;
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i]) continue;
    spheres.GetElement(particles.element_id[i]).Set(TO_ERASE, true);
    Node(&spheres.Nodal(), particles.node[i]).Set(TO_ERASE, true);
    removed_nodes.push_back(particles.node[i]);
  }
  std::sort(removed_nodes.begin(), removed_nodes.end());
  const NodalDatabase& db = spheres.Nodal();
  std::vector<IdType> node_ids;
  node_ids.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i]) node_ids.push_back(db.Id(particles.node[i]));
  spheres.RemoveElementsFlagged(TO_ERASE);
  spheres.RemoveNodesFlagged(TO_ERASE);
  particles.Compact(keep);
  // A cluster's rows go all or none: its first row is kept or it is being removed.
  for (std::uint32_t& first : clusters.first_row)
    if (new_index[first] != kRemovedRow) first = new_index[first];
  // Node positions moved with the removal. The database keeps the order of
  // the nodes it keeps, so a node moves back by the removed nodes before it
  // (a search per row instead of an element lookup by id: the distributed
  // run removes ghosts at every search). Where another node was removed with
  // them (flagged by someone else), the elements say.
  bool same_nodes = true;
  for (std::size_t row = 0; row < particles.size() && same_nodes; ++row) {
    const IndexType old = particles.node[row];
    const auto before = std::lower_bound(removed_nodes.begin(), removed_nodes.end(), old);
    const IndexType moved = old - static_cast<IndexType>(before - removed_nodes.begin());
    same_nodes = moved < db.Size() && db.Id(moved) == node_ids[row];
    particles.node[row] = moved;
  }
  if (!same_nodes)
    for (std::size_t row = 0; row < particles.size(); ++row)
      particles.node[row] =
          spheres.GetElement(particles.element_id[row]).GetGeometry().NodeIndex(0);
  return new_index;
}

}  // namespace tessera::dem
