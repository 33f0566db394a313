// The Area Distributed Method's sphere force as the gradient of the energy
// its contacts store (DemSettings::adm_energy_gradient).
//
// Under ADM (walls/area_distribution.h) a sphere on the skin stores
//     U(x) = Σ_m (A_m/A_T) U_law(R - d̄_m),
// with d̄_m the area-weighted mean distance of master m's faces (its mean
// plane). The thesis' force, Σ_m (A_m/A_T) U_law'(δ_m) n̄_m, holds the areas
// and the weights fixed: as the sphere moves over a deforming skin they
// change (a face enters, a dent tilts the faces, the circle crosses an edge of
// the body), and the force does work that U does not store. The sphere's
// force here is -∂U/∂x at its centre, by central differences of the same
// areas and distances (the skin's nodes held), one-sided where a contact
// appears or vanishes within the difference step (the Distance Hierarchy
// changes U's branches there), none where both sides change. The correction
// -∂U/∂x - Σ_m F_m is shared among the masters in proportion to their normal
// forces, so that each face's nodes take their share of it at their
// intersection centroids (B.2) and the nodes' forces still sum to minus the
// sphere's. A pure force through the centre: U does not depend on the
// sphere's rotation.
#include <cmath>
#include <vector>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/walls/distance_hierarchy.h"

namespace tessera::dem {

namespace {

// The difference step, relative to the radius: the areas and distances are
// smooth on this scale (rounding of U ~1e-16 U over 1e-6 R leaves ~1e-10 of
// the force).
constexpr double kGradientStep = 1e-6;

}  // namespace

double ExplicitSolverStrategy::AdmStoredEnergy(std::size_t i, const Array3& centre,
                                               std::vector<int>& structure) {
  const WallContacts& wc = wall_contacts_;
  const ParticleStorage& p = particles_;
  const RigidFaceStorage& faces = faces_;
  const std::uint32_t begin = wc.particle_start[i], end = wc.particle_start[i + 1];
  const std::size_t count = end - begin;
  thread_local std::vector<FaceContactGeometry> feature;
  thread_local std::vector<std::uint8_t> reached;
  thread_local std::vector<int> shadowed_by;
  thread_local std::vector<AreaShare> shares;
  thread_local std::vector<double> master_area;
  thread_local std::vector<MasterSurface> surface;
  if (feature.size() < count) {
    feature.resize(count), reached.resize(count), shadowed_by.resize(count);
    shares.resize(count), master_area.resize(count), surface.resize(count);
  }
  structure.assign(count, -1);
  const int own_wall = static_cast<int>(p.glued[i]) - 1;
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t f = wc.face[begin + k];
    if (own_wall >= 0 && face_sticky_[f] == own_wall)
      feature[k].type = FaceContactType::kNone;
    else
      FaceContact(faces, f, centre, p.radius[i], feature[k]);
    reached[k] = feature[k].type != FaceContactType::kNone && face_area_distributed_[f];
  }
  ApplyDistanceHierarchy(feature.data(), count, shadowed_by.data());
  const double total =
      DistributeByArea(faces, wc.face.data() + begin, count, centre, p.radius[i], reached.data(),
                       shadowed_by.data(), feature.data(), shares.data(), master_area.data());
  // Which contacts survive and which master each face with an area serves:
  // where these change, U jumps.
  for (std::size_t k = 0; k < count; ++k)
    structure[k] = feature[k].type != FaceContactType::kNone ? -2
                   : shares[k].area > 0.0                    ? shares[k].master
                                                             : -1;
  if (!(total > 0.0)) return 0.0;
  AverageMasterSurfaces(faces, wc.face.data() + begin, count, centre, shares.data(),
                        master_area.data(), feature.data(), surface.data());
  double energy = 0.0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t f = wc.face[begin + k];
    if (feature[k].type == FaceContactType::kNone || !face_area_distributed_[f] ||
        !(master_area[k] > 0.0))
      continue;
    const double overlap = p.radius[i] - surface[k].distance;
    if (!(overlap > 0.0)) continue;
    const PairParameters& pair = table_.WallPair(p.material[i], faces.material[f]);
    if (!pair.defined) continue;  // ComputeWallContacts reports it
    // The law's stored energy at this overlap, from a fresh history at rest.
    Array3 spring{};
    double stiffness = 0.0, normal_elastic = 0.0;
    std::uint8_t sliding = 0;
    const ContactForce at_rest = ComputeContactForce(
        pair, overlap, p.radius[i], p.mass[i], surface[k].normal, Array3{}, Array3{},
        ContactHistoryRef{spring, stiffness, normal_elastic, sliding}, settings_.delta_time);
    energy += master_area[k] / total * at_rest.elastic_energy;
  }
  return energy;
}

void ExplicitSolverStrategy::CorrectAdmForcesToEnergyGradient(std::size_t i, Array3& force,
                                                              Array3& elastic) {
  WallContacts& wc = wall_contacts_;
  const std::uint32_t begin = wc.particle_start[i], end = wc.particle_start[i + 1];
  // The masters' normal elastic forces on the sphere, and their sum.
  Array3 thesis{};
  double weight_sum = 0.0;
  for (std::uint32_t c = begin; c < end; ++c) {
    if (!wc.active[c] || !wc.adm_distributed[c]) continue;
    const double normal = Dot(wc.elastic_force[c], wc.normal[c]);
    thesis += normal * wc.normal[c];
    weight_sum += std::abs(normal);
  }
  if (!(weight_sum > 0.0)) return;
  thread_local std::vector<int> at_centre, plus, minus;
  const Array3 x = particles_.position[i];
  const double h = kGradientStep * particles_.radius[i];
  const double energy = AdmStoredEnergy(i, x, at_centre);
  Array3 gradient{};
  for (int d = 0; d < settings_.dimension; ++d) {
    Array3 step{};
    step[d] = h;
    const double up = AdmStoredEnergy(i, x + step, plus);
    const double down = AdmStoredEnergy(i, x - step, minus);
    const bool up_same = plus == at_centre, down_same = minus == at_centre;
    if (up_same && down_same)
      gradient[d] = (up - down) / (2.0 * h);
    else if (up_same)
      gradient[d] = (up - energy) / h;
    else if (down_same)
      gradient[d] = (energy - down) / h;
    else
      return;  // a contact appears on both sides: keep the thesis' force this step
  }
  const Array3 correction = -gradient - thesis;
  for (std::uint32_t c = begin; c < end; ++c) {
    if (!wc.active[c] || !wc.adm_distributed[c]) continue;
    const Array3 share =
        (std::abs(Dot(wc.elastic_force[c], wc.normal[c])) / weight_sum) * correction;
    wc.force[c] += share;
    wc.elastic_force[c] += share;
  }
  force += correction;
  elastic += correction;
}

}  // namespace tessera::dem
