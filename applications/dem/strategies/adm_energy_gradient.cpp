// The Area Distributed Method with energy-consistent forces
// (DemSettings::adm_energy_gradient): every force of a sphere's skin contacts
// is the gradient of one stored energy.
//
// The thesis' ADM (walls/area_distribution.h, B.1-B.2) scales each master's
// force by A_m/A_T and gives its reaction to the faces at their
// intersection centroids. On a denting skin that force field is not the
// gradient of any energy: the masters the Distance Hierarchy keeps switch
// from one step to the next where a sphere presses near an edge of the body
// (a side face's contact is shadowed, then not), each switch moves the
// master surfaces and the energy they store by tens of joules in V4.4, and
// the coupled energy drifts (benchmarks/v4_4_prism_in_box.py).
//
// Here a sphere (centre x, radius R) stores, over the faces it cuts,
//     U(x, X) = Σ_e (A_e/A_T) U_law(R - d_e),
// with A_e the area of the circle it cuts in face e's plane inside the face
// (App. C, the thesis' areas), A_T = Σ A_e, X the faces' vertices, and d_e
// the face's plane distance where the face lies along the area-weighted mean
// normal of the faces cut, its nearest point's distance where it is turned
// from that normal by kSameSurfaceAngle or more (another side of the body:
// over a convex edge its plane passes near the centre), blended in between
// as the thesis' ADM blends faces into a master's surface. U depends on no
// master or hierarchy: it is continuous as the sphere and the skin move. On
// one flat face, or coplanar ones, it is the thesis' U_law(δ).
//
// The sphere's force is -∂U/∂x, the force on each vertex of each of its
// faces -∂U/∂X_vertex (a node shared by faces sums its vertices'), by central
// differences on a private copy of the sphere's candidate faces, one-sided
// where a face begins or stops being cut within the difference step, none
// where both sides change (the thesis' forces for that sphere and step).
// U does not change when the sphere and its faces move together, so the
// vertex forces sum to minus the sphere's (their differences' rounding is
// removed, so that the nodes' loads sum to minus the spheres' forces to
// round-off); nor does it depend on the sphere's rotation (a pure force
// through the centre). The stored energy the contacts report is U. The
// correction -∂U/∂x - Σ_m F_m of the thesis' normal forces is shared among
// the masters in proportion to their normal forces (their tangential and
// damping forces stay as they are, and reach the nodes by the shares).
// Cost per sphere on the skin and step: U at 7 centres (every face's terms),
// and one face's terms with U summed again for each of 6 × (vertices of the
// faces cut) moved vertices (AdmFaceTerm, AdmEnergyOfTerms).
#include <algorithm>
#include <cmath>
#include <vector>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/walls/area_distribution.h"
#include "applications/dem/walls/rigid_face_storage.h"

namespace tessera::dem {

namespace {

// The difference step, relative to the radius: the areas and distances are
// smooth on this scale (rounding of U ~1e-16 U over 1e-6 R leaves ~1e-10 of
// the force).
constexpr double kGradientStep = 1e-6;

// The cosines of the blend of a face's distance (AdmStoredEnergy), as the
// thesis' ADM blends its faces into a master's surface (area_distribution.h).
const double kFullCosine = std::cos(kSameSurfaceAngle / 2.0);
const double kNoneCosine = std::cos(kSameSurfaceAngle);

}  // namespace

void ExplicitSolverStrategy::AdmFaceTerm(std::size_t i, const Array3& centre,
                                         const RigidFaceStorage& faces, std::size_t k,
                                         AdmFaceTerms& terms) {
  const std::uint32_t f = wall_contacts_.face[wall_contacts_.particle_start[i] + k];
  const ParticleStorage& p = particles_;
  terms.area[k] = 0.0;
  terms.cut[k] = 0;
  // A face not under ADM, or of the particle's own sticky wall, takes no part.
  const int own_wall = static_cast<int>(p.glued[i]) - 1;
  if (!face_area_distributed_[f] || (own_wall >= 0 && face_sticky_[f] == own_wall)) return;
  FaceContactGeometry feature;
  FaceContact(faces, k, centre, p.radius[i], feature);
  if (feature.type == FaceContactType::kNone) return;
  AreaShare share;
  CircleFaceAreaShare(faces, static_cast<std::uint32_t>(k), centre, p.radius[i], share);
  if (!(share.area > 0.0)) return;
  const double d = Dot(centre - faces.plane_origin[k], faces.plane_normal[k]);
  terms.area[k] = share.area;
  terms.cut[k] = 1;
  terms.plane_distance[k] = std::abs(d);
  terms.nearest_distance[k] = feature.distance;
  terms.towards[k] = (d < 0.0 ? 1.0 : -1.0) * faces.plane_normal[k];
}

double ExplicitSolverStrategy::AdmEnergyOfTerms(std::size_t i, const RigidFaceStorage& faces,
                                                const AdmFaceTerms& terms) {
  const ParticleStorage& p = particles_;
  const std::size_t count = terms.area.size();
  double total = 0.0;
  for (std::size_t k = 0; k < count; ++k) total += terms.area[k];
  if (!(total > 0.0)) return 0.0;
  // The mean normal of the faces cut, from the centre towards them, weighted
  // by area and by the plane's distance (relative to the radius): the
  // surface the sphere presses on. A face whose plane the centre crosses
  // turns its normal round; with its distance as weight it passes through 0
  // there, and the mean stays continuous.
  Array3 mean_normal{};
  for (std::size_t k = 0; k < count; ++k)
    if (terms.cut[k])
      mean_normal += (terms.area[k] * terms.plane_distance[k] / p.radius[i]) * terms.towards[k];
  const double mean_length = Norm(mean_normal);
  if (mean_length > 0.0) mean_normal = (1.0 / mean_length) * mean_normal;
  double energy = 0.0;
  for (std::size_t k = 0; k < count; ++k) {
    if (!terms.cut[k]) continue;
    // A face along the mean surface presses with its plane's distance (the
    // ADM's mean plane, App. B), a face turned from it by kSameSurfaceAngle
    // or more (another side of the body: over a convex edge its plane
    // passes near the centre) with its own nearest point's, blended
    // linearly in the cosine from half that angle.
    const double b = std::clamp(
        (Dot(terms.towards[k], mean_normal) - kNoneCosine) / (kFullCosine - kNoneCosine), 0.0, 1.0);
    const double distance = b * terms.plane_distance[k] + (1.0 - b) * terms.nearest_distance[k];
    const double overlap = p.radius[i] - distance;
    if (!(overlap > 0.0)) continue;
    const PairParameters& pair = table_.WallPair(p.material[i], faces.material[k]);
    if (!pair.defined) continue;  // ComputeWallContacts reports it
    // The law's stored energy at this overlap, from a fresh history at rest.
    Array3 spring{};
    double stiffness = 0.0, normal_elastic = 0.0;
    std::uint8_t sliding = 0;
    const ContactForce at_rest = ComputeContactForce(
        pair, overlap, p.radius[i], p.mass[i], terms.towards[k], Array3{}, Array3{},
        ContactHistoryRef{spring, stiffness, normal_elastic, sliding}, settings_.delta_time);
    energy += terms.area[k] / total * at_rest.elastic_energy;
  }
  return energy;
}

double ExplicitSolverStrategy::AdmStoredEnergy(std::size_t i, const Array3& centre,
                                               const RigidFaceStorage& faces, AdmFaceTerms& terms) {
  const std::size_t count = faces.size();
  terms.Resize(count);
  for (std::size_t k = 0; k < count; ++k) AdmFaceTerm(i, centre, faces, k, terms);
  return AdmEnergyOfTerms(i, faces, terms);
}

namespace {

// One component of U's gradient by differences of `energy(±h)` about
// `at_centre` (U at the unperturbed state, whose faces cut are `cut`):
// central where neither side changes which faces the sphere cuts,
// one-sided where one does. False where both do. `energy` writes the faces
// cut at the moved state to its second argument.
template <class Evaluate>
bool DifferenceQuotient(Evaluate&& energy, double h, double at_centre,
                        const std::vector<std::uint8_t>& cut, std::vector<std::uint8_t>& plus,
                        std::vector<std::uint8_t>& minus, double& derivative) {
  const double up = energy(h, plus);
  const double down = energy(-h, minus);
  const bool up_same = plus == cut, down_same = minus == cut;
  if (up_same && down_same)
    derivative = (up - down) / (2.0 * h);
  else if (up_same)
    derivative = (up - at_centre) / h;
  else if (down_same)
    derivative = (at_centre - down) / h;
  else
    return false;
  return true;
}

}  // namespace

void ExplicitSolverStrategy::CorrectAdmForcesToEnergyGradient(std::size_t i, Array3& force,
                                                              Array3& elastic) {
  WallContacts& wc = wall_contacts_;
  const std::uint32_t begin = wc.particle_start[i], end = wc.particle_start[i + 1];
  const std::size_t count = end - begin;
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
  // A private copy of the candidate faces, whose vertices the differences move.
  thread_local RigidFaceStorage local;
  thread_local AdmFaceTerms at_centre, moved;
  thread_local std::vector<std::uint8_t> plus, minus;
  CopyFaceRows(faces_, wc.face.data() + begin, count, local);
  const Array3 x = particles_.position[i];
  const double h = kGradientStep * particles_.radius[i];
  const double energy = AdmStoredEnergy(i, x, local, at_centre);
  // The sphere's gradient, the faces held: every face's terms change.
  Array3 gradient{};
  for (int d = 0; d < settings_.dimension; ++d) {
    auto moved_centre = [&](double step, std::vector<std::uint8_t>& cut) {
      Array3 y = x;
      y[d] += step;
      const double u = AdmStoredEnergy(i, y, local, moved);
      cut = moved.cut;
      return u;
    };
    if (!DifferenceQuotient(moved_centre, h, energy, at_centre.cut, plus, minus, gradient[d]))
      return;  // a face enters on both sides: keep the thesis' forces this step
  }
  // Each vertex's, the sphere held: moving a vertex of face k changes face
  // k's terms only (U then sums them again). Only faces the sphere cuts take
  // part (a face out of reach stays out within the step, or changes which
  // faces are cut).
  thread_local std::vector<std::array<Array3, 4>> vertex_gradient;
  vertex_gradient.assign(count, std::array<Array3, 4>{});
  moved = at_centre;
  Array3 vertex_sum{};
  int vertices = 0;
  for (std::size_t k = 0; k < count; ++k) {
    if (!at_centre.cut[k]) continue;
    for (int v = 0; v < local.vertex_count[k]; ++v) {
      for (int d = 0; d < settings_.dimension; ++d) {
        const double held = local.points[k][v][d];
        auto moved_vertex = [&](double step, std::vector<std::uint8_t>& cut) {
          local.points[k][v][d] = held + step;
          UpdateFaceGeometry(local, k);
          AdmFaceTerm(i, x, local, k, moved);
          const double u = AdmEnergyOfTerms(i, local, moved);
          cut = moved.cut;
          return u;
        };
        const bool ok = DifferenceQuotient(moved_vertex, h, energy, at_centre.cut, plus, minus,
                                           vertex_gradient[k][v][d]);
        local.points[k][v][d] = held;
        UpdateFaceGeometry(local, k);
        moved.CopyRow(at_centre, k);
        if (!ok) return;  // as for the sphere: the thesis' forces this step
      }
      vertex_sum += vertex_gradient[k][v];
      ++vertices;
    }
  }
  // Σ_vertices ∂U/∂X = -∂U/∂x exactly; the differences leave their rounding,
  // removed in equal parts.
  if (vertices == 0) return;
  const Array3 residual = (1.0 / vertices) * (vertex_sum + gradient);
  for (std::size_t k = 0; k < count; ++k) {
    if (!at_centre.cut[k]) continue;
    for (int v = 0; v < local.vertex_count[k]; ++v)
      wc.adm_vertex_force[begin + k][v] = residual - vertex_gradient[k][v];
  }
  // The sphere: each master's normal elastic force and its share of the
  // correction are its force's gradient part.
  const Array3 correction = -gradient - thesis;
  for (std::uint32_t c = begin; c < end; ++c) {
    if (!wc.active[c] || !wc.adm_distributed[c]) continue;
    const double normal = Dot(wc.elastic_force[c], wc.normal[c]);
    const Array3 share = (std::abs(normal) / weight_sum) * correction;
    wc.force[c] += share;
    wc.elastic_force[c] += share;
    wc.adm_gradient_force[c] = normal * wc.normal[c] + share;
    // The energy the contacts store is U, in the same shares.
    wc.energy[c] = (std::abs(normal) / weight_sum) * energy;
  }
  force += correction;
  elastic += correction;
}

}  // namespace tessera::dem
