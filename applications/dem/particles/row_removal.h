// Removing spheres and rigid clusters from a running DEM strategy, shared by
// the explicit and the Moreau-Jean strategies: which rows leave the bounding
// box (cluster members judged by their cluster's centre), and the removal of
// rows from the spheres' model part and the row storage. Each strategy then
// renumbers the contact data it keeps with the returned old-to-new map, and
// removes the clusters (RemoveClusters, rigid_clusters.h).
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/core/array3.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem {

struct ParticleStorage;
struct RigidClusters;

// The new index of a removed row.
inline constexpr std::uint32_t kRemovedRow = ~std::uint32_t{0};

struct RowsToKeep {
  std::vector<std::uint8_t> rows;             // per row: 1 kept, 0 removed
  std::vector<std::uint8_t> clusters;         // per cluster
  bool any_row = false, any_cluster = false;  // whether anything is removed
};

// Whether `x` lies outside [box_min, box_max] (a NaN coordinate counts as outside).
inline bool OutsideBox(const Array3& x, const Array3& box_min, const Array3& box_max) {
  for (int k = 0; k < 3; ++k)
    if (!(x[k] >= box_min[k] && x[k] <= box_max[k])) return true;
  return false;
}

// The rows and clusters whose centre is outside [box_min, box_max] (a NaN
// centre counts as outside); a cluster's members go with it.
RowsToKeep RowsOutsideBox(const ParticleStorage& particles, const RigidClusters& clusters,
                          const Array3& box_min, const Array3& box_max);

// Removes the rows with keep[i] == 0: their elements and nodes from
// `spheres`, their rows (compacted in order); the kept rows' node indices and
// the kept clusters' first rows follow. Returns the old-to-new row map
// (kRemovedRow for a removed row); being monotonic, it keeps sorted lists
// sorted.
std::vector<std::uint32_t> RemoveRows(ModelPart& spheres, ParticleStorage& particles,
                                      RigidClusters& clusters,
                                      const std::vector<std::uint8_t>& keep);

}  // namespace tessera::dem
