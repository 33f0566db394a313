// The walls' nodal DEM_PRESSURE and SHEAR_STRESS from the summed contact
// loads: the strategy's WriteToNodes (node_sync.cpp) and a distributed run's
// global wall results (parallel/global_wall_results.cpp) finish them alike.
#pragma once

#include <cmath>
#include <vector>

#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera::dem {

// For every wall node: `pressure` holds the sum over the node's faces of the
// magnitudes of each face's normal share, `tangential` the summed tangential
// forces, `area` the nodal area; pressure becomes that sum over the area,
// shear |tangential| over the area (both 0 where the area is not positive).
// Divided once per node; a node without load keeps its zeros without a
// division.
inline void FinishWallNodalStresses(const std::vector<IndexType>& nodes, const double* area,
                                    const Array3* tangential, double* pressure, double* shear) {
  for (const IndexType node : nodes) {
    const double a = area[node];
    if (!(a > 0.0)) {
      pressure[node] = 0.0;
      continue;
    }
    if (pressure[node] != 0.0) pressure[node] /= a;
    const double along2 = Dot(tangential[node], tangential[node]);
    if (along2 != 0.0) shear[node] = std::sqrt(along2) / a;
  }
}

}  // namespace tessera::dem
