// Node synchronisation: the rows and the spheres' nodes (shared columns where
// the layout lets them, copies otherwise), and the wall nodes' results.
#include <array>
#include <cmath>

#include "applications/dem/dem_variables.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/wall_nodal_stresses.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {

void ExplicitSolverStrategy::ShareRowsWithNodes() {
  if (settings_.tuning.share_rows_with_nodes)
    particles_.ShareColumnsWithNodes(spheres_.Nodal());
  else
    particles_.OwnColumns();
}

void ExplicitSolverStrategy::RefreshSharedRows() {
  if (particles_.SharesColumnsWithNodes()) particles_.ShareColumnsWithNodes(spheres_.Nodal());
}

void ExplicitSolverStrategy::ReadFromNodes() {
  const ScopedPhase phase(timings_.node_sync);
  RefreshSharedRows();
  if (initialized_) AdoptElementsAddedToTheModelPart();
  ReadParticlesFromNodes(spheres_, particles_);
  if (walls_ != nullptr) ReadFreeWallLoads(*walls_, free_walls_);
  if (!clusters_.empty()) {
    // Members move with their cluster, whose velocities a script may have set.
    ReadClustersFromNodes(clusters_, *clusters_part_);
    PlaceClusterMembers(clusters_, particles_, /*positions=*/false, periodic_);
  }
  if (settings_.dimension != 2) return;
  // A process or script may have written a full 3D vector: a disc keeps its
  // in-plane part (the check at Initialize reports off-plane initial states).
  for (std::size_t i = 0; i < particles_.size(); ++i) {
    particles_.velocity[i][2] = 0.0;
    particles_.angular_velocity[i][0] = particles_.angular_velocity[i][1] = 0.0;
  }
}

// FAILURE_CRITERION_STATE (the mean over the sphere's bonds, thesis 5.44),
// where the spheres hold it.
void ExplicitSolverStrategy::WriteBondResultsToNodes() {
  NodalDatabase& db = spheres_.Nodal();
  if (!db.HasHistoricalVariable(FAILURE_CRITERION_STATE)) return;
  double* column = db.HistoricalColumn(FAILURE_CRITERION_STATE).Data();
  const std::vector<double> value = bonds_.RowFailureCriterion(particles_.size());
  for (std::size_t i = 0; i < particles_.size(); ++i) column[particles_.node[i]] = value[i];
}

void ExplicitSolverStrategy::WriteToNodes() {
  const ScopedPhase phase(timings_.node_sync);
  RefreshSharedRows();
  // DISPLACEMENT from the coordinates, except in a periodic domain, where
  // they jump and the steps advance it (IntegrationConstants).
  WriteParticlesToNodes(particles_, spheres_,
                        /*displacements_from_coordinates=*/!settings_.periodic);
  if (!clusters_.empty()) WriteClustersToNodes(clusters_, *clusters_part_);
  if (settings_.continuum && spheres_.Nodal().HasHistoricalVariable(DAMAGE_RATIO)) {
    double* ratio = spheres_.Nodal().HistoricalColumn(DAMAGE_RATIO).Data();
    const std::vector<double> share = bonds_.BrokenShare(particles_.size());
    for (std::size_t i = 0; i < share.size(); ++i) ratio[particles_.node[i]] = share[i];
  }
  if (settings_.continuum) WriteBondResultsToNodes();
  // DEM_STRESS_TENSOR: written by the force pass (ComputeForces).
  if (!walls_ || faces_.size() == 0) return;
  NodalDatabase& db = walls_->Nodal();
  Array3* contact = db.HistoricalColumn(CONTACT_FORCES).Data();
  Array3* elastic = db.HistoricalColumn(ELASTIC_FORCES).Data();
  Array3* tangential = db.HistoricalColumn(TANGENTIAL_ELASTIC_FORCES).Data();
  double* pressure = db.HistoricalColumn(DEM_PRESSURE).Data();
  double* shear = db.HistoricalColumn(SHEAR_STRESS).Data();
  double* area = db.HistoricalColumn(DEM_NODAL_AREA).Data();
  for (const IndexType node : face_vertex_nodes_) {
    contact[node] = elastic[node] = tangential[node] = Array3{};
    pressure[node] = shear[node] = area[node] = 0.0;
  }
  // Forces of the particles on the walls, spread with the shape functions
  // (Kratos' nodal wall results): CONTACT_FORCES and ELASTIC_FORCES are the
  // sums of the total and elastic forces' shares; each face splits its
  // vertices' shares of the total force along its own normal (a segment, which
  // has no plane, along the contact's): the tangential parts add up as vectors
  // (TANGENTIAL_ELASTIC_FORCES, from the total force as in Kratos) and
  // SHEAR_STRESS is their magnitude over the nodal area; DEM_PRESSURE is the
  // sum over the node's faces of the magnitude of each face's normal share,
  // over the nodal area. Opposite tangential loads on a node thus cancel, as
  // the traction they make does.
  // Under the Area Distributed Method each face the sphere reaches carries
  // its share (A_e / A_m) of its master contact's force, at the face's
  // intersection centroid (walls/area_distribution.h); with
  // adm_energy_gradient the normal elastic part goes to the vertices as the
  // stored energy's derivatives instead (WallRowVertexLoads).
  face_normal_shares_.assign(faces_.size(), std::array<double, 4>{});
  const WallContacts& wc = wall_contacts_;
  std::array<Array3, 4> on_wall, elastic_on_wall;
  for (std::size_t c = 0; c < wc.particle.size(); ++c) {
    if (!WallRowVertexLoads(c, on_wall, elastic_on_wall)) continue;
    const std::uint32_t f = wc.face[c];
    const Array3 n = faces_.has_plane[f] ? faces_.plane_normal[f] : wc.normal[c];
    std::array<double, 4>& shares = face_normal_shares_[f];
    for (int k = 0; k < faces_.vertex_count[f]; ++k) {
      const IndexType node = faces_.nodes[f][k];
      const double normal = Dot(on_wall[k], n);
      contact[node] += on_wall[k];
      elastic[node] += elastic_on_wall[k];
      tangential[node] += on_wall[k] - normal * n;
      shares[k] += normal;
    }
  }
  // Nodal area: each face gives its vertices equal shares of its area; and
  // its normal shares, in magnitude, to their pressure.
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    const int count = faces_.vertex_count[f];
    const double face_area = faces_.area[f];  // kept with the face's plane
    for (int k = 0; k < count; ++k) {
      const IndexType node = faces_.nodes[f][k];
      area[node] += face_area / count;
      pressure[node] += std::abs(face_normal_shares_[f][k]);
    }
  }
  // Divided by the area once per node (dividing per contact and vertex cost
  // an eighth of this output in the mixer).
  FinishWallNodalStresses(face_vertex_nodes_, area, tangential, pressure, shear);
}

bool ExplicitSolverStrategy::WallRowVertexLoads(std::size_t c, std::array<Array3, 4>& total,
                                                std::array<Array3, 4>& elastic) const {
  const WallContacts& wc = wall_contacts_;
  const bool adm = area_distribution_ && wc.adm_master.size() == wc.particle.size();
  const bool gradient = adm && wc.adm_vertex_force.size() == wc.particle.size();
  const std::uint32_t f = wc.face[c];
  const int count = faces_.vertex_count[f];
  std::size_t source = c;  // the contact whose force this face takes
  double share = 1.0;
  bool carries = true;
  if (adm && wc.adm_master[c] != kNoMaster) {
    source = wc.adm_master[c];
    share = wc.adm_fraction[c];
  } else if (!wc.active[c] || (adm && wc.adm_distributed[c])) {
    carries = false;  // no contact, or one whose force its faces' shares carry
  }
  if (!carries && !gradient) return false;
  total = elastic = std::array<Array3, 4>{};
  if (carries) {
    // Under adm_energy_gradient the gradient's part of the force goes out
    // through the vertex forces instead.
    const Array3 replaced = gradient ? wc.adm_gradient_force[source] : Array3{};
    const Array3 on_wall = -share * (wc.force[source] - replaced);
    const Array3 elastic_on_wall = -share * (wc.elastic_force[source] - replaced);
    for (int k = 0; k < count; ++k) {
      total[k] = wc.weights[c][k] * on_wall;
      elastic[k] = wc.weights[c][k] * elastic_on_wall;
    }
  }
  bool any = carries;
  if (gradient)
    for (int k = 0; k < count; ++k) {
      const Array3& v = wc.adm_vertex_force[c][k];
      if (v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0) continue;
      total[k] += v;
      elastic[k] += v;
      any = true;
    }
  return any;
}

}  // namespace tessera::dem
