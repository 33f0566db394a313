// DistributedDem::WriteGlobalWallResults (see distributed_dem.h): the walls'
// nodal contact results of the whole run on every rank. Each rank sums the
// shares of its owned spheres' wall contacts only (a ghost's contacts are its
// owner's) as the strategy's WriteToNodes spreads them (node_sync.cpp); rank 0
// adds the ranks' partial sums in ascending rank order and broadcasts them, so
// every rank holds the same bits. DEM_PRESSURE takes the magnitude of each
// face's *global* normal share per vertex (a face's contacts may belong to
// several ranks), DEM_NODAL_AREA is the strategy's own (the walls are alike on
// every rank).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "applications/dem/dem_variables.h"
#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/wall_nodal_stresses.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {

void DistributedDem::WriteGlobalWallResults() {
  // Every rank takes part in the reduction, walls or not (a rank leaving it
  // would hang the others); rank 0 checks that all sent the same sizes.
  const auto& faces = s_.faces_;
  const bool has_walls = s_.walls_ != nullptr && faces.size() > 0;
  const std::vector<IndexType>& nodes = s_.face_vertex_nodes_;
  const std::size_t n_nodes = has_walls ? nodes.size() : 0;
  const std::size_t n_faces = has_walls ? faces.size() : 0;
  // Slot of each wall node in `nodes` (its three vectors in the buffer).
  std::size_t largest = 0;
  for (const IndexType node : nodes) largest = std::max<std::size_t>(largest, node);
  std::vector<std::int64_t> slot(largest + 1, -1);
  for (std::size_t k = 0; k < n_nodes; ++k) slot[nodes[k]] = static_cast<std::int64_t>(k);

  // Buffer: per node contact, elastic and tangential (9 doubles), then per
  // face its four vertices' normal shares.
  const std::size_t shares_at = 9 * n_nodes;
  std::vector<double> local(shares_at + 4 * n_faces, 0.0);
  const auto& wc = s_.wall_contacts_;
  std::array<Array3, 4> on_wall, elastic_on_wall;
  for (std::size_t c = 0; has_walls && c < wc.particle.size(); ++c) {
    if (!OwnedRow(wc.particle[c])) continue;
    if (!s_.WallRowVertexLoads(c, on_wall, elastic_on_wall)) continue;
    const std::uint32_t f = wc.face[c];
    const Array3 n = faces.has_plane[f] ? faces.plane_normal[f] : wc.normal[c];
    for (int k = 0; k < faces.vertex_count[f]; ++k) {
      const std::size_t s = static_cast<std::size_t>(slot[faces.nodes[f][k]]);
      const double normal = Dot(on_wall[k], n);
      const Array3 along = on_wall[k] - normal * n;
      double* v = &local[9 * s];
      for (int d = 0; d < 3; ++d) {
        v[d] += on_wall[k][d];
        v[3 + d] += elastic_on_wall[k][d];
        v[6 + d] += along[d];
      }
      local[shares_at + 4 * f + k] += normal;
    }
  }

  // Sum in ascending rank order on rank 0, then the same bits everywhere.
  std::vector<double> global;
  const std::vector<std::vector<double>> parts = comm_->Gather(local, 0);
  if (rank_ == 0) {
    global.assign(local.size(), 0.0);
    for (std::size_t r = 0; r < parts.size(); ++r) {
      if (parts[r].size() != local.size())
        TESSERA_ERROR("WriteGlobalWallResults: rank ", r, " sent ", parts[r].size(),
                      " wall values, rank 0 expected ", local.size(),
                      " (the walls must be alike on every rank)");
      for (std::size_t i = 0; i < local.size(); ++i) global[i] += parts[r][i];
    }
  }
  comm_->Broadcast(global, 0);
  if (!has_walls) return;

  NodalDatabase& db = s_.walls_->Nodal();
  Array3* contact = db.HistoricalColumn(CONTACT_FORCES).Data();
  Array3* elastic = db.HistoricalColumn(ELASTIC_FORCES).Data();
  Array3* tangential = db.HistoricalColumn(TANGENTIAL_ELASTIC_FORCES).Data();
  double* pressure = db.HistoricalColumn(DEM_PRESSURE).Data();
  double* shear = db.HistoricalColumn(SHEAR_STRESS).Data();
  const double* area = db.HistoricalColumn(DEM_NODAL_AREA).Data();
  for (std::size_t k = 0; k < n_nodes; ++k) {
    const double* v = &global[9 * k];
    const IndexType node = nodes[k];
    contact[node] = Array3{v[0], v[1], v[2]};
    elastic[node] = Array3{v[3], v[4], v[5]};
    tangential[node] = Array3{v[6], v[7], v[8]};
    pressure[node] = shear[node] = 0.0;
  }
  // As WriteToNodes: the magnitudes of the faces' normal shares, then per
  // node over its area.
  for (std::size_t f = 0; f < n_faces; ++f)
    for (int k = 0; k < faces.vertex_count[f]; ++k)
      pressure[faces.nodes[f][k]] += std::abs(global[shares_at + 4 * f + k]);
  FinishWallNodalStresses(nodes, area, tangential, pressure, shear);
}

}  // namespace tessera::dem
