// The wall contacts of one sphere: the closest feature of each candidate face
// (facet, edge, vertex), the Distance Hierarchy (or, with the Area Distributed
// Method, the faces' shares of the force by intersection area), the hand-over
// of tangential histories between faces, the forces; and the loads they put on
// free walls.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/parallel_error.h"
#include "applications/dem/walls/distance_hierarchy.h"

namespace tessera::dem {

namespace {

// Contact points closer than this (relative to the radius) are one point: the
// slack of the history hand-over between faces when nothing moved.
constexpr double kCoincidentContact = 1e-9;

// The wall contacts' per-sphere scratch, one per thread (as ThreadBatch in
// pair_contact_pass.cpp).
[[gnu::noinline]] std::vector<FaceContactGeometry>& ThreadWallFeatures() {
  static thread_local std::vector<FaceContactGeometry> features;
  return features;
}

// to = from, one component at a time (ComputeWallContacts says why).
[[gnu::always_inline]] inline void StoreComponents(Array3& to, const Array3& from) {
  const double x = from[0], y = from[1], z = from[2];
  to[0] = x;
  to[1] = y;
  to[2] = z;
}

// How far ahead, in rows, the block's first pass fetches the rows of a sphere
// with wall candidates: on the inlet-filled mixer fetching ahead shortened the
// forces phase, and 32 rows and 64 measured alike.
constexpr std::size_t kWallRowsAhead = 32;

}  // namespace

void ExplicitSolverStrategy::StartRowsFromWallContacts(std::size_t begin, std::size_t end) {
  ParticleStorage& p = particles_;
  // Raw pointers, as in the pair pass (ComputeParticleContacts).
  const Array3* const position = p.position.data();
  const Array3* const velocity = p.velocity.data();
  const Array3* const spin = p.angular_velocity.data();
  const Array3* const step_displacement = p.delta_displacement.data();
  const Array3* const step_rotation = p.delta_rotation.data();
  const double* const radius = p.radius.data();
  const double* const mass = p.mass.data();
  const double* const inertia = p.inertia.data();
  const int* const material = p.material.data();
  Array3* const contact_force = p.contact_force.data();
  Array3* const torque = p.torque.data();
  // The elastic parts are summed only where the rows hold ELASTIC_FORCES.
  const bool sum_elastic = !p.elastic_force.empty();
  Array3* const elastic_force = sum_elastic ? p.elastic_force.data() : nullptr;
  const std::uint32_t* const wall_start = wall_contacts_.particle_start.data();
  const std::uint32_t* const wall_face = wall_contacts_.face.data();
  const std::uint32_t* const glued = p.glued.data();
  auto prefetch_wall_sphere = [=](std::size_t a) {
    __builtin_prefetch(&glued[a]);
    __builtin_prefetch(&position[a]);
    __builtin_prefetch(&radius[a]);
    __builtin_prefetch(&material[a]);
    __builtin_prefetch(&mass[a]);
    __builtin_prefetch(&inertia[a]);
    __builtin_prefetch(&velocity[a]);
    __builtin_prefetch(&spin[a]);
    __builtin_prefetch(&step_displacement[a]);
    __builtin_prefetch(&step_rotation[a]);
    __builtin_prefetch(&wall_face[wall_start[a]]);
  };
  std::vector<FaceContactGeometry>& wall_features = ThreadWallFeatures();
  for (std::size_t i = begin; i < end; ++i) {
    // The rows of the sphere kWallRowsAhead rows on, if it has wall
    // candidates, fetched now: the spheres near a wall are a sparse subset
    // of the rows, whose lines the hardware prefetcher does not bring, and
    // the wall contacts waited on them (the sphere's spin and velocity were
    // the loop's slowest loads).
    if (const std::size_t a = i + kWallRowsAhead; a < end && wall_start[a] != wall_start[a + 1])
      prefetch_wall_sphere(a);
    if (wall_start[i] == wall_start[i + 1]) {  // most spheres are far from any wall
      // Separate stores: a chained assignment reloads each value it stored.
      contact_force[i] = Array3{};
      if (sum_elastic) elastic_force[i] = Array3{};
      torque[i] = Array3{};
      continue;
    }
    Array3 wall_force{}, wall_elastic{}, wall_torque{};
    ComputeWallContacts(i, wall_features, wall_force, wall_elastic, wall_torque);
    contact_force[i] = wall_force;
    if (sum_elastic) elastic_force[i] = wall_elastic;
    torque[i] = wall_torque;
  }
}

void ExplicitSolverStrategy::ComputeWallContacts(std::size_t i,
                                                 std::vector<FaceContactGeometry>& features,
                                                 Array3& force, Array3& elastic, Array3& torque) {
  WallContacts& wc = wall_contacts_;
  const ParticleStorage& p = particles_;
  const double dt = settings_.delta_time;
  const RigidFaceStorage& faces = faces_;
  const std::uint32_t begin = wc.particle_start[i], end = wc.particle_start[i + 1];
  // Closest feature of every candidate face, then one contact per touched
  // region (Double Hierarchy, thesis §3.4). A glued particle is part of its
  // sticky wall: no contact with that wall's faces.
  const int own_wall = static_cast<int>(p.glued[i]) - 1;
  if (features.size() < end - begin) features.resize(end - begin);
  FaceContactGeometry* const feature = features.data();  // feature[c - begin]
  for (std::uint32_t c = begin; c < end; ++c) {
    if (own_wall >= 0 && face_sticky_[wc.face[c]] == own_wall)
      feature[c - begin].type = FaceContactType::kNone;
    else
      FaceContact(faces, wc.face[c], p.position[i], p.radius[i], feature[c - begin]);
  }
  // Area Distributed Method (walls/area_distribution.h): the faces the sphere
  // reaches before the Distance Hierarchy, who shadowed whom, the areas.
  const bool adm = area_distribution_;
  if (adm && settings_.adm_energy_gradient)
    for (std::uint32_t c = begin; c < end; ++c) {
      wc.adm_gradient_force[c] = Array3{};
      wc.adm_vertex_force[c] = std::array<Array3, 4>{};
    }
  thread_local std::vector<std::uint8_t> reached;
  thread_local std::vector<int> shadowed_by;
  thread_local std::vector<AreaShare> shares;
  thread_local std::vector<double> master_area;
  thread_local std::vector<MasterSurface> surface;
  double total_area = 0.0;
  if (adm) {
    const std::size_t count = end - begin;
    if (reached.size() < count) {
      reached.resize(count), shadowed_by.resize(count), shares.resize(count);
      master_area.resize(count), surface.resize(count);
    }
    // Only the faces under ADM share areas (the others are contacts of their own).
    for (std::size_t k = 0; k < count; ++k)
      reached[k] =
          feature[k].type != FaceContactType::kNone && face_area_distributed_[wc.face[begin + k]];
    ApplyDistanceHierarchy(features.data(), count, shadowed_by.data());
    total_area = DistributeByArea(faces, wc.face.data() + begin, count, p.position[i], p.radius[i],
                                  reached.data(), shadowed_by.data(), feature, shares.data(),
                                  master_area.data());
    for (std::uint32_t c = begin; c < end; ++c) {
      const AreaShare& share = shares[c - begin];
      const bool carries = total_area > 0.0 && share.master >= 0 && share.area > 0.0;
      wc.adm_master[c] = carries ? begin + static_cast<std::uint32_t>(share.master) : kNoMaster;
      wc.adm_fraction[c] = carries ? share.area / master_area[share.master] : 0.0;
      wc.adm_distributed[c] = total_area > 0.0 &&
                              feature[c - begin].type != FaceContactType::kNone &&
                              master_area[c - begin] > 0.0;
    }
    if (total_area > 0.0)
      AverageMasterSurfaces(faces, wc.face.data() + begin, count, p.position[i], shares.data(),
                            master_area.data(), feature, surface.data());
  } else {
    ApplyDistanceHierarchy(features.data(), end - begin);
  }
  CarryWallHistoryAcrossFaces(i, features.data());
  // The contacts, the loop compiled twice: with the side table's rows of a law
  // that keeps more history (contact_force.h) where the run holds them, and
  // without, so that a run without such a law runs the loop it always did.
  auto contacts = [&]<bool kExtra>(std::bool_constant<kExtra>) {
    for (std::uint32_t c = begin; c < end; ++c) {
      const std::uint32_t f = wc.face[c];
      ContactHistoryRef history{wc.tangential_force[c], wc.tangential_stiffness[c],
                                wc.normal_elastic_force[c], wc.sliding[c]};
      // The side table's row of a law with more history (contact_force.h).
      double* extra = nullptr;
      if constexpr (kExtra) extra = wc.extra_history[c].data();
      const FaceContactGeometry& g = feature[c - begin];
      if (g.type == FaceContactType::kNone) {
        if (wc.active[c]) {
          ResetContactHistory(history);
          if constexpr (kExtra) wc.extra_history[c] = ExtraHistoryRow{};
        }
        wc.active[c] = 0;
        continue;
      }
      // Under ADM a master's surface is its faces' area-weighted mean
      // (AverageMasterSurfaces): its overlap, normal and motion.
      const bool averaged =
          adm && total_area > 0.0 && face_area_distributed_[f] && master_area[c - begin] > 0.0;
      const MasterSurface* mean = averaged ? &surface[c - begin] : nullptr;
      const Array3 normal = mean ? mean->normal : g.normal;
      const double overlap = p.radius[i] - (mean ? mean->distance : g.distance);
      const std::size_t pair_index =
          static_cast<std::size_t>(p.material[i]) * table_.size() + faces.material[f];
      const PairParameters& pair = table_.WallPair(p.material[i], faces.material[f]);
      if (!pair.defined) {
        RecordError(pending_wall_error_, static_cast<std::int64_t>(c));
        wc.active[c] = 0;
        continue;
      }
      // The sphere's share of the overlap, E_w / (E_i + E_w) (two springs in series).
      const double arm_length = p.radius[i] - pair_arrays_.share[pair_index] * overlap;
      const Array3 arm = arm_length * normal;
      // The wall moves at its contact point as its vertices, weighted by the
      // shape functions there (under ADM: as the faces' intersection centroids,
      // weighted by area, where the force goes).
      // (A wall standing still adds zeros: the sums are skipped, the same bits
      // as the weights are not negative.)
      Array3 wall_velocity{}, wall_displacement{};
      if (mean) {
        wall_velocity = mean->velocity;
        wall_displacement = mean->displacement;
      } else if (!faces.still[f]) {
        for (int k = 0; k < faces.vertex_count[f]; ++k) {
          wall_velocity += g.weights[k] * faces.velocities[f][k];
          wall_displacement += g.weights[k] * faces.delta_displacement[f][k];
        }
      }
      const Array3 relative_velocity =
          wall_velocity - (p.velocity[i] + Cross(p.angular_velocity[i], arm));
      const Array3 relative_displacement =
          wall_displacement - (p.delta_displacement[i] + Cross(p.delta_rotation[i], arm));
      // The dashpots' mass: the sphere's, or against a face with nodal
      // masses (a deformable skin) the reduced mass with the wall point.
      const double damping_mass =
          faces.massive[f] ? ContactDampingMass(faces, f, g.weights, p.mass[i]) : p.mass[i];
      // Kratos' slider where asked for (DemSettings::kratos_wall_slider).
      ContactForce result = ComputeContactForce(pair, overlap, p.radius[i], damping_mass, normal,
                                                relative_velocity, relative_displacement, history,
                                                dt, -1.0, extra, settings_.kratos_wall_slider);
      if (adm && total_area > 0.0 && face_area_distributed_[f]) {
        // B.1: the normal force scaled by the master's share of the area (the
        // contact's history, and so its tangential law, is the unscaled one's).
        const double ratio = master_area[c - begin] / total_area;
        result.force += (ratio - 1.0) * Dot(result.force, normal) * normal;
        result.elastic_force += (ratio - 1.0) * Dot(result.elastic_force, normal) * normal;
        // The normal dashpot's power (F_n - F_ne) δ' scales with its force.
        const double normal_damping_power =
            (result.normal_force - history.normal_elastic_force) * -Dot(relative_velocity, normal);
        result.damping_power -= (1.0 - ratio) * normal_damping_power;
        result.normal_force *= ratio;
        result.elastic_energy *= ratio;
      }
      // Component by component: a whole-struct copy from the result read 16
      // bytes where 8 had just been stored, which stalled on every contact.
      StoreComponents(wc.force[c], result.force);
      StoreComponents(wc.elastic_force[c], result.elastic_force);
      wc.energy[c] = result.elastic_energy;
      wc.weights[c] = g.weights;
      wc.normal[c] = normal;
      wc.point[c] = g.point;
      if (!wc.arm.empty()) wc.arm[c] = arm_length;
      wc.active[c] = 1;
      force += result.force;
      elastic += result.elastic_force;
      // Rolling resistance against the wall, R_r = R_i (thesis §2.5.3).
      const Array3 rolling = RollingResistanceTorque(pair.rolling_model, pair.rolling_friction,
                                                     p.radius[i], result.normal_force,
                                                     p.angular_velocity[i], 1.0 / p.inertia[i], dt);
      torque += Cross(arm, result.force) + rolling;
      StoreComponents(wc.rolling[c], rolling);
      wc.dissipation[c] = {result.damping_power, result.friction_power,
                           -Dot(rolling, p.angular_velocity[i])};
    }
  };
  if (kExtraHistoryDoubles > 0 && wc.keeps_extra_history)
    contacts(std::bool_constant<(kExtraHistoryDoubles > 0)>{});
  else
    contacts(std::false_type{});
  // ADM: each face that carries a share takes it at its intersection
  // centroid (B.2).
  if (adm && total_area > 0.0)
    for (std::uint32_t c = begin; c < end; ++c)
      if (wc.adm_master[c] != kNoMaster) wc.weights[c] = shares[c - begin].weights;
  // The sphere's force as the gradient of the energy it stores (adm_energy_gradient.cpp).
  if (adm && total_area > 0.0 && settings_.adm_energy_gradient)
    CorrectAdmForcesToEnergyGradient(i, force, elastic);
}

void ExplicitSolverStrategy::CarryWallHistoryAcrossFaces(std::size_t i,
                                                         const FaceContactGeometry* features) {
  // A sphere sliding from one face to the next ends a contact and starts one
  // with a new face in the same step. The new contact takes the history of the
  // ended contact whose last contact point is nearest to its own, when that
  // point is within what the contact point can have moved in one step
  // (thesis §3.5.2, 3.22), so that friction stays continuous across a mesh.
  WallContacts& wc = wall_contacts_;
  const ParticleStorage& p = particles_;
  const std::uint32_t begin = wc.particle_start[i], end = wc.particle_start[i + 1];
  // Only a step that both starts and ends a contact of this sphere hands a
  // history over (most steps do neither).
  bool started = false, ended = false;
  for (std::uint32_t c = begin; c < end; ++c) {
    const bool touching = features[c - begin].type != FaceContactType::kNone;
    started = started || (touching && !wc.active[c]);
    ended = ended || (!touching && wc.active[c]);
  }
  if (!(started && ended)) return;
  double wall_motion = 0.0;
  for (std::uint32_t c = begin; c < end; ++c)
    for (int k = 0; k < faces_.vertex_count[wc.face[c]]; ++k)
      wall_motion = std::max(wall_motion, Norm(faces_.delta_displacement[wc.face[c]][k]));
  const double reach = 2.0 * (Norm(p.delta_displacement[i]) +
                              p.radius[i] * Norm(p.delta_rotation[i]) + wall_motion) +
                       kCoincidentContact * p.radius[i];
  for (std::uint32_t c = begin; c < end; ++c) {
    if (wc.active[c] || features[c - begin].type == FaceContactType::kNone) continue;
    std::uint32_t donor = end;
    double nearest = reach;
    for (std::uint32_t k = begin; k < end; ++k) {
      // An ended contact that has not yet given its history away.
      if (!wc.active[k] || features[k - begin].type != FaceContactType::kNone) continue;
      const double d = Norm(features[c - begin].point - wc.point[k]);
      if (d <= nearest) nearest = d, donor = k;
    }
    if (donor == end) continue;
    // The tangential force turned into the new tangent plane, magnitude kept.
    const Array3 n = features[c - begin].normal;
    const Array3 old_force = wc.tangential_force[donor];
    const Array3 in_plane = old_force - Dot(old_force, n) * n;
    const double length = Norm(in_plane);
    wc.tangential_force[c] = length > 0.0 ? (Norm(old_force) / length) * in_plane : Array3{};
    wc.tangential_stiffness[c] = wc.tangential_stiffness[donor];
    wc.normal_elastic_force[c] = wc.normal_elastic_force[donor];
    wc.sliding[c] = wc.sliding[donor];
    if constexpr (kExtraHistoryDoubles > 0)
      if (wc.keeps_extra_history) {
        wc.extra_history[c] = wc.extra_history[donor];
        wc.extra_history[donor] = ExtraHistoryRow{};
      }
    wc.active[c] = 1;
    // The donor is spent: it now counts as a contact that has just ended.
    ContactHistoryRef spent{wc.tangential_force[donor], wc.tangential_stiffness[donor],
                            wc.normal_elastic_force[donor], wc.sliding[donor]};
    ResetContactHistory(spent);
    wc.active[donor] = 0;
  }
}

void ExplicitSolverStrategy::CollectFreeWallLoads() {
  if (free_walls_.empty()) return;
  // A distributed run: the sum over the contacts of all ranks (DistributedDem).
  if (hooks_.free_wall_loads) return hooks_.free_wall_loads();
  for (FreeRigidWall& body : free_walls_) body.contact_force = body.contact_moment = Array3{};
  // Serial, in list order: the same sums for any number of threads. The
  // reaction of a contact acts on the wall at the contact point; the rolling
  // resistance torque on the particle returns as its opposite.
  const WallContacts& wc = wall_contacts_;
  for (std::size_t c = 0; c < wc.particle.size(); ++c) {
    if (!wc.active[c]) continue;
    const int b = face_free_wall_[wc.face[c]];
    if (b < 0) continue;
    FreeRigidWall& body = free_walls_[static_cast<std::size_t>(b)];
    body.contact_force -= wc.force[c];
    body.contact_moment += ContactMomentOnWall(body, wc.point[c], wc.force[c], wc.rolling[c]);
  }
}

}  // namespace tessera::dem
