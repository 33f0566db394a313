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
// (App. C's, the thesis' areas: walls/sphere_face_area_gradient.h gives it
// with its derivatives, equal to App. C's composition to round-off),
// A_T = Σ A_e, X the faces' vertices, and d_e the face's plane distance
// where the face lies along the area-weighted mean normal of the faces
// cut, its nearest point's distance where it is turned
// from that normal by kSameSurfaceAngle or more (another side of the body:
// over a convex edge its plane passes near the centre), blended in between
// as the thesis' ADM blends faces into a master's surface. U depends on no
// master or hierarchy: it is continuous as the sphere and the skin move. On
// one flat face, or coplanar ones, it is the thesis' U_law(δ).
//
// The sphere's force is -∂U/∂x, the force on each vertex of each of its
// faces -∂U/∂X_vertex (a node shared by faces sums its vertices'), both
// exact, of the current configuration's U, by the chain rule in two passes:
//   - per face cut, its terms and their derivatives with respect to x and
//     the face's own vertices: A_e's in closed form
//     (walls/sphere_face_area_gradient.h), the plane distance's through the
//     face's normal and origin (UpdateFaceGeometry's: a triangle's edges, a
//     quadrilateral's diagonals and vertex mean), the nearest point's by the
//     envelope theorem (the point is the closest of its edge, vertex or
//     facet: only the explicit dependence counts, the centre's along the
//     normal, each vertex's with its weight at the point);
//   - U's derivatives with respect to the terms, backwards through the
//     blend, the mean normal and the area weights (AdmEnergyOfTerms), with
//     U_law's slope dU_law/dδ (the law's EnergySlope).
// U does not change when the sphere and its faces move together, so the
// vertex forces sum to minus the sphere's (the rounding of the sums is
// removed, so that the nodes' loads sum to minus the spheres' forces to
// round-off); nor does it depend on the sphere's rotation (a pure force
// through the centre). The stored energy the contacts report is U. The
// correction -∂U/∂x - Σ_m F_m of the thesis' normal forces is shared among
// the masters in proportion to their normal forces (their tangential and
// damping forces stay as they are, and reach the nodes by the shares).
// Cost per sphere on the skin and step: one pass over its candidate faces
// (the closest feature, and the area with its derivatives, of each face in
// reach) and one over the faces cut.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>
#include <vector>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/contact_laws/contact_laws.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/walls/area_distribution.h"
#include "applications/dem/walls/rigid_face_storage.h"
#include "applications/dem/walls/sphere_face_area_gradient.h"

namespace tessera::dem {

namespace {

// The cosines of the blend of a face's distance (AdmEnergyOfTerms), as the
// thesis' ADM blends its faces into a master's surface (area_distribution.h).
const double kFullCosine = std::cos(kSameSurfaceAngle / 2.0);
const double kNoneCosine = std::cos(kSameSurfaceAngle);

// Adds to the vertices' derivatives those of a function of face f's plane
// (UpdateFaceGeometry's unit normal n and origin o) with derivatives
// `d_normal` and `d_origin`: n = c / |c| with c a triangle's edges' or a
// quadrilateral's diagonals' cross product, o a triangle's first vertex or a
// quadrilateral's vertex mean.
void AddPlaneDerivatives(const RigidFaceStorage& faces, std::uint32_t f, const Array3& d_normal,
                         const Array3& d_origin, std::array<Array3, 4>& d_vertex) {
  const auto& v = faces.points[f];
  const Array3& n = faces.plane_normal[f];
  if (faces.vertex_count[f] == 3) {
    const Array3 e1 = v[1] - v[0], e2 = v[2] - v[0];
    const Array3 dc = (d_normal - Dot(n, d_normal) * n) / Norm(Cross(e1, e2));
    // δ(e1 × e2)·dc = δe1·(e2 × dc) + δe2·(dc × e1).
    const Array3 d1 = Cross(e2, dc), d2 = Cross(dc, e1);
    d_vertex[0] += d_origin - d1 - d2;
    d_vertex[1] += d1;
    d_vertex[2] += d2;
  } else {
    const Array3 g1 = v[2] - v[0], g2 = v[3] - v[1];
    const Array3 dc = (d_normal - Dot(n, d_normal) * n) / Norm(Cross(g1, g2));
    const Array3 d1 = Cross(g2, dc), d2 = Cross(dc, g1);
    const Array3 mean = 0.25 * d_origin;
    d_vertex[0] += mean - d1;
    d_vertex[1] += mean - d2;
    d_vertex[2] += mean + d1;
    d_vertex[3] += mean + d2;
  }
}

}  // namespace

void ExplicitSolverStrategy::AdmFaceTerm(std::size_t i, std::size_t k, AdmFaceTerms& terms) {
  const std::uint32_t f = wall_contacts_.face[wall_contacts_.particle_start[i] + k];
  const ParticleStorage& p = particles_;
  const Array3& centre = p.position[i];
  terms.area[k] = 0.0;
  terms.cut[k] = 0;
  // A face not under ADM, or of the particle's own sticky wall, takes no part.
  const int own_wall = static_cast<int>(p.glued[i]) - 1;
  if (!face_area_distributed_[f] || (own_wall >= 0 && face_sticky_[f] == own_wall)) return;
  FaceContactGeometry& feature = terms.nearest[k];
  FaceContact(faces_, f, centre, p.radius[i], feature);
  if (feature.type == FaceContactType::kNone) return;
  SphereFaceAreaGradient& area = terms.area_gradient[k];
  SphereFaceAreaWithGradient(centre, p.radius[i], faces_.points[f], faces_.vertex_count[f], area);
  if (!(area.area > 0.0)) return;
  const double d = Dot(centre - faces_.plane_origin[f], faces_.plane_normal[f]);
  terms.area[k] = area.area;
  terms.cut[k] = 1;
  terms.side[k] = d < 0.0 ? -1.0 : 1.0;
  terms.plane_distance[k] = std::abs(d);
  terms.nearest_distance[k] = feature.distance;
  terms.towards[k] = -terms.side[k] * faces_.plane_normal[f];
}

double ExplicitSolverStrategy::AdmEnergyOfTerms(std::size_t i, AdmFaceTerms& terms) {
  const ParticleStorage& p = particles_;
  const std::uint32_t* const face = wall_contacts_.face.data() + wall_contacts_.particle_start[i];
  const double radius = p.radius[i];
  const std::size_t count = terms.area.size();
  double total = 0.0;
  for (std::size_t k = 0; k < count; ++k) {
    total += terms.area[k];
    terms.d_area[k] = terms.d_plane_distance[k] = terms.d_nearest_distance[k] = 0.0;
    terms.d_towards[k] = Array3{};
  }
  if (!(total > 0.0)) return 0.0;
  // The mean normal of the faces cut, from the centre towards them, weighted
  // by area and by the plane's distance (relative to the radius): the
  // surface the sphere presses on. A face whose plane the centre crosses
  // turns its normal round; with its distance as weight it passes through 0
  // there, and the mean stays continuous.
  Array3 mean_normal{};
  for (std::size_t k = 0; k < count; ++k)
    if (terms.cut[k])
      mean_normal += (terms.area[k] * terms.plane_distance[k] / radius) * terms.towards[k];
  const double mean_length = Norm(mean_normal);
  if (mean_length > 0.0) mean_normal = (1.0 / mean_length) * mean_normal;
  // Per face: its law's energy U_k and slope, its blend b_k and whether the
  // blend is between its clamps (then it varies with the cosine).
  thread_local std::vector<double> law_energy, law_slope, blend;
  thread_local std::vector<std::uint8_t> blending;
  law_energy.assign(count, 0.0), law_slope.assign(count, 0.0), blend.assign(count, 0.0);
  blending.assign(count, 0);
  double energy = 0.0;
  for (std::size_t k = 0; k < count; ++k) {
    if (!terms.cut[k]) continue;
    // A face along the mean surface presses with its plane's distance (the
    // ADM's mean plane, App. B), a face turned from it by kSameSurfaceAngle
    // or more (another side of the body: over a convex edge its plane
    // passes near the centre) with its own nearest point's, blended
    // linearly in the cosine from half that angle.
    const double s =
        (Dot(terms.towards[k], mean_normal) - kNoneCosine) / (kFullCosine - kNoneCosine);
    const double b = std::clamp(s, 0.0, 1.0);
    blend[k] = b;
    blending[k] = s > 0.0 && s < 1.0;
    const double distance = b * terms.plane_distance[k] + (1.0 - b) * terms.nearest_distance[k];
    const double overlap = radius - distance;
    if (!(overlap > 0.0)) continue;
    const PairParameters& pair = table_.WallPair(p.material[i], faces_.material[face[k]]);
    if (!pair.defined) continue;  // ComputeWallContacts reports it
    // The law's stored energy at this overlap, from a fresh history at rest.
    Array3 spring{};
    double stiffness = 0.0, normal_elastic = 0.0;
    std::uint8_t sliding = 0;
    const ContactForce at_rest = ComputeContactForce(
        pair, overlap, radius, p.mass[i], terms.towards[k], Array3{}, Array3{},
        ContactHistoryRef{spring, stiffness, normal_elastic, sliding}, settings_.delta_time);
    law_energy[k] = at_rest.elastic_energy;
    law_slope[k] = ContactLaws::Visit(pair.law, [&]<class L>(std::type_identity<L>) {
      return L::EnergySlope(pair, normal_elastic);
    });
    energy += terms.area[k] / total * at_rest.elastic_energy;
  }
  // Backwards: U's derivatives with respect to each face's terms, through
  // U = Σ_k (A_k / A_T) U_k(R - d_k), d_k = b_k d_plane + (1 - b_k) d_nearest,
  // b_k of the cosine of towards_k with the mean normal, and the mean
  // normal of the areas, plane distances and normals.
  Array3 d_mean{};  // ∂U/∂(unit mean normal)
  const double per_cosine = 1.0 / (kFullCosine - kNoneCosine);
  for (std::size_t k = 0; k < count; ++k) {
    if (!terms.cut[k]) continue;
    terms.d_area[k] = (law_energy[k] - energy) / total;
    const double d_distance = -terms.area[k] / total * law_slope[k];
    terms.d_plane_distance[k] = d_distance * blend[k];
    terms.d_nearest_distance[k] = d_distance * (1.0 - blend[k]);
    if (!blending[k]) continue;
    const double d_cosine =
        d_distance * (terms.plane_distance[k] - terms.nearest_distance[k]) * per_cosine;
    terms.d_towards[k] += d_cosine * mean_normal;
    d_mean += d_cosine * terms.towards[k];
  }
  if (mean_length > 0.0) {
    // Through the normalisation, then the weighted sum.
    const Array3 d_sum = (d_mean - Dot(mean_normal, d_mean) * mean_normal) / mean_length;
    for (std::size_t k = 0; k < count; ++k) {
      if (!terms.cut[k]) continue;
      const double along = Dot(terms.towards[k], d_sum) / radius;
      terms.d_area[k] += terms.plane_distance[k] * along;
      terms.d_plane_distance[k] += terms.area[k] * along;
      terms.d_towards[k] += (terms.area[k] * terms.plane_distance[k] / radius) * d_sum;
    }
  }
  return energy;
}

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
  thread_local AdmFaceTerms terms;
  terms.Resize(count);
  for (std::size_t k = 0; k < count; ++k) AdmFaceTerm(i, k, terms);
  const double energy = AdmEnergyOfTerms(i, terms);
  // The chain rule from the terms to the centre and each face's vertices.
  const Array3& x = particles_.position[i];
  Array3 gradient{};
  thread_local std::vector<std::array<Array3, 4>> vertex_gradient;
  vertex_gradient.assign(count, std::array<Array3, 4>{});
  Array3 vertex_sum{};
  int vertices = 0;
  for (std::size_t k = 0; k < count; ++k) {
    if (!terms.cut[k]) continue;
    const std::uint32_t f = wc.face[begin + k];
    const int n_vertices = faces_.vertex_count[f];
    std::array<Array3, 4>& d_vertex = vertex_gradient[k];
    // The area.
    const SphereFaceAreaGradient& area = terms.area_gradient[k];
    gradient += terms.d_area[k] * area.centre;
    for (int v = 0; v < n_vertices; ++v) d_vertex[v] += terms.d_area[k] * area.vertex[v];
    // The nearest point's distance: on the facet it is the plane's; on an
    // edge or at a vertex |P - x|, P = Σ w_v X_v held at its weights.
    double d_plane = terms.d_plane_distance[k];
    const FaceContactGeometry& nearest = terms.nearest[k];
    if (nearest.type == FaceContactType::kFacet) {
      d_plane += terms.d_nearest_distance[k];
    } else {
      gradient -= terms.d_nearest_distance[k] * nearest.normal;
      for (int v = 0; v < n_vertices; ++v)
        d_vertex[v] += (terms.d_nearest_distance[k] * nearest.weights[v]) * nearest.normal;
    }
    // The plane's distance s (x - o)·n and the normal towards it, -s n.
    const double side = terms.side[k];
    const Array3& n = faces_.plane_normal[f];
    gradient += (d_plane * side) * n;
    AddPlaneDerivatives(faces_, f,
                        side * (d_plane * (x - faces_.plane_origin[f]) - terms.d_towards[k]),
                        (-side * d_plane) * n, d_vertex);
    for (int v = 0; v < n_vertices; ++v) vertex_sum += d_vertex[v];
    vertices += n_vertices;
  }
  // Σ_vertices ∂U/∂X = -∂U/∂x exactly; the sums leave their rounding,
  // removed in equal parts.
  if (vertices == 0) return;
  const Array3 residual = (1.0 / vertices) * (vertex_sum + gradient);
  for (std::size_t k = 0; k < count; ++k) {
    if (!terms.cut[k]) continue;
    const std::uint32_t f = wc.face[begin + k];
    for (int v = 0; v < faces_.vertex_count[f]; ++v)
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
