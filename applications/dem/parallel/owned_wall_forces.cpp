// DistributedDem::OwnedWallContactForces (see distributed_dem.h): the nodal
// wall forces of the contacts of this rank's owned spheres only, so that a
// sum over the ranks counts every sphere-wall contact once (a ghost's wall
// contacts are its owner's as well). The coupled DE-FE stage under MPI sums
// these over the ranks to load the structure's skin nodes.
#include <algorithm>
#include <vector>

#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"

namespace tessera::dem {

std::vector<double> DistributedDem::OwnedWallContactForces(
    const std::vector<std::int64_t>& wall_nodes) const {
  std::vector<double> out(3 * wall_nodes.size(), 0.0);
  if (!s_.walls_ || s_.faces_.size() == 0 || wall_nodes.empty()) return out;
  // Slot of each wall node index in `wall_nodes` (-1: not asked for).
  std::int64_t largest = 0;
  for (const std::int64_t node : wall_nodes) {
    if (node < 0) TESSERA_ERROR("OwnedWallContactForces: negative wall node index ", node);
    largest = std::max(largest, node);
  }
  std::vector<std::int64_t> slot(static_cast<std::size_t>(largest) + 1, -1);
  for (std::size_t k = 0; k < wall_nodes.size(); ++k)
    slot[static_cast<std::size_t>(wall_nodes[k])] = static_cast<std::int64_t>(k);
  // The share of each contact as the strategy's WriteToNodes spreads it
  // (node_sync.cpp: direct interpolation or the Area Distributed Method),
  // in the same contact order, restricted to owned rows.
  const auto& wc = s_.wall_contacts_;
  std::array<Array3, 4> on_wall, elastic_on_wall;
  for (std::size_t c = 0; c < wc.particle.size(); ++c) {
    if (!OwnedRow(wc.particle[c])) continue;
    if (!s_.WallRowVertexLoads(c, on_wall, elastic_on_wall)) continue;
    const std::uint32_t f = wc.face[c];
    for (int k = 0; k < s_.faces_.vertex_count[f]; ++k) {
      const std::size_t node = s_.faces_.nodes[f][k];
      if (node >= slot.size() || slot[node] < 0) continue;
      double* target = &out[3 * static_cast<std::size_t>(slot[node])];
      target[0] += on_wall[k][0], target[1] += on_wall[k][1], target[2] += on_wall[k][2];
    }
  }
  return out;
}

}  // namespace tessera::dem
