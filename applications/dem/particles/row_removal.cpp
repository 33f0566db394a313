// Removing spheres and rigid clusters from a running strategy (see
// row_removal.h).
#include "applications/dem/particles/row_removal.h"

#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/particles/rigid_clusters.h"
#include "kernel/core/flags.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {

RowsToKeep RowsOutsideBox(const ParticleStorage& particles, const RigidClusters& clusters,
                          const Array3& box_min, const Array3& box_max) {
  const auto outside = [&](const Array3& x) {
    for (int k = 0; k < 3; ++k)
      if (!(x[k] >= box_min[k] && x[k] <= box_max[k])) return true;
    return false;
  };
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
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i]) continue;
    spheres.GetElement(particles.element_id[i]).Set(TO_ERASE, true);
    Node(&spheres.Nodal(), particles.node[i]).Set(TO_ERASE, true);
  }
  spheres.RemoveElementsFlagged(TO_ERASE);
  spheres.RemoveNodesFlagged(TO_ERASE);
  particles.Compact(keep);
  // A cluster's rows go all or none: its first row is kept or it is being removed.
  for (std::uint32_t& first : clusters.first_row)
    if (new_index[first] != kRemovedRow) first = new_index[first];
  // Node positions moved with the removal: take them from the elements again,
  // found by id (the rows may be sorted in space, not in element order).
  for (std::size_t row = 0; row < particles.size(); ++row)
    particles.node[row] = spheres.GetElement(particles.element_id[row]).GetGeometry().NodeIndex(0);
  return new_index;
}

}  // namespace tessera::dem
