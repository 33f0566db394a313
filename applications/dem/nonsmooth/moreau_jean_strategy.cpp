// The Moreau-Jean time stepping of the DEM spheres (moreau_jean_strategy.h).
#include "applications/dem/nonsmooth/moreau_jean_strategy.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "applications/dem/particles/row_removal.h"
#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/model/model_part.h"

namespace tessera::dem::nonsmooth {

namespace {
constexpr std::uint64_t kWallBit = std::uint64_t{1} << 31;
}

MoreauJeanStrategy::MoreauJeanStrategy(ModelPart& spheres, ModelPart* walls, DemSettings settings,
                                       MoreauJeanSettings nonsmooth)
    : spheres_(spheres), walls_(walls), settings_(std::move(settings)), ns_(std::move(nonsmooth)) {
  const std::string where = "solver_settings.moreau_jean_settings";
  if (!(ns_.theta >= 0.0 && ns_.theta <= 1.0))
    TESSERA_ERROR(where, ".theta must be in [0, 1] (1/2..1 unconditionally stable), got ",
                  ns_.theta);
  if (ns_.activation == "predicted_gap")
    predicted_gap_ = true;
  else if (ns_.activation == "midpoint_gap")
    predicted_gap_ = false;
  else
    TESSERA_ERROR(where, ".activation '", ns_.activation,
                  "' is not known; expected \"predicted_gap\" or \"midpoint_gap\"");
  nlgs_.order = SweepOrderFromName(ns_.sweep_order, where);
  if (!(ns_.relaxation > 0.0 && ns_.relaxation < 2.0))
    TESSERA_ERROR(where, ".relaxation must be in (0, 2), got ", ns_.relaxation);
  if (!(ns_.tolerance > 0.0)) TESSERA_ERROR(where, ".tolerance must be > 0, got ", ns_.tolerance);
  if (ns_.max_iterations < 1)
    TESSERA_ERROR(where, ".max_iterations must be >= 1, got ", ns_.max_iterations);
  if (ns_.sweeps_per_exchange < 1)
    TESSERA_ERROR(where, ".sweeps_per_exchange must be >= 1, got ", ns_.sweeps_per_exchange);
  if (!(ns_.tangential_restitution >= 0.0 && ns_.tangential_restitution <= 1.0))
    TESSERA_ERROR(where, ".tangential_restitution must be in [0, 1], got ",
                  ns_.tangential_restitution);
  nlgs_.relaxation = ns_.relaxation;
  nlgs_.tolerance = ns_.tolerance;
  nlgs_.max_iterations = ns_.max_iterations;
  nlgs_.seed = ns_.seed;
  nlgs_.sweeps_per_exchange = ns_.sweeps_per_exchange;
  if (!(settings_.delta_time > 0.0))
    TESSERA_ERROR("moreau_jean_strategy: the time step must be > 0, got ", settings_.delta_time);
}

void MoreauJeanStrategy::CheckSupported() const {
  if (settings_.dimension != 3)
    TESSERA_ERROR("moreau_jean_strategy runs 3D spheres; 'Dimension' must be 3");
  if (settings_.periodic)
    TESSERA_ERROR("moreau_jean_strategy: 'PeriodicDomainOption' is not supported");
  if (settings_.continuum)
    TESSERA_ERROR("moreau_jean_strategy: bonded spheres (continuum) are not supported");
}

void MoreauJeanStrategy::Initialize() {
  CheckSupported();
  clusters_ = RigidClusters{};
  if (clusters_part_ != nullptr && clusters_part_->NumberOfElements() > 0)
    CreateClusterSpheresAfterIds(*clusters_part_, spheres_, {&spheres_, walls_, clusters_part_}, 3,
                                 clusters_);
  FillParticles(spheres_, material_index_, particles_, 3);
  if (!clusters_.empty()) AttachClusterRows(clusters_, particles_);
  const std::size_t particle_materials = material_index_.size();
  if (walls_) FillRigidFaces(*walls_, material_index_, faces_, 3);
  std::vector<bool> is_wall(material_index_.size(), false);
  for (std::size_t k = particle_materials; k < is_wall.size(); ++k) is_wall[k] = true;
  table_.Build(material_index_.List(), is_wall);
  initialized_ = true;
}

void MoreauJeanStrategy::SetDeformableNodes(const std::vector<IndexType>& positions) {
  if (!initialized_)
    TESSERA_ERROR(
        "moreau_jean_strategy: SetDeformableNodes after Initialize (the walls are read then)");
  deformable_positions_ = positions;
  face_slot_.clear();
  node_inv_mass_.assign(positions.size(), Array3{});
  node_free_velocity_.assign(positions.size(), Array3{});
  node_start_velocity_.assign(positions.size(), Array3{});
  node_impulse_.assign(positions.size(), Array3{});
  node_state_set_ = false;
  if (positions.empty()) return;
  std::vector<std::pair<IndexType, std::int32_t>> sorted(positions.size());
  for (std::size_t k = 0; k < positions.size(); ++k)
    sorted[k] = {positions[k], static_cast<std::int32_t>(k)};
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k].first == sorted[k - 1].first)
      TESSERA_ERROR("moreau_jean_strategy: deformable wall node at position ", sorted[k].first,
                    " is listed twice");
  face_slot_.assign(faces_.size(), {-1, -1, -1, -1});
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    int found = 0;
    for (int v = 0; v < faces_.vertex_count[f]; ++v) {
      const auto it = std::lower_bound(sorted.begin(), sorted.end(),
                                       std::pair<IndexType, std::int32_t>{faces_.nodes[f][v], -1});
      if (it != sorted.end() && it->first == faces_.nodes[f][v])
        face_slot_[f][v] = it->second, ++found;
    }
    if (found != 0 && found != faces_.vertex_count[f])
      TESSERA_ERROR("moreau_jean_strategy: wall condition ", faces_.condition_id[f], " has ", found,
                    " of its ", int(faces_.vertex_count[f]),
                    " nodes on the deformable structure; a face is deformable or rigid as a whole");
  }
}

void MoreauJeanStrategy::SetDeformableNodeState(std::vector<Array3> inv_mass,
                                                std::vector<Array3> free_velocity,
                                                std::vector<Array3> start_velocity) {
  const std::size_t n = deformable_positions_.size();
  if (inv_mass.size() != n || free_velocity.size() != n || start_velocity.size() != n)
    TESSERA_ERROR("moreau_jean_strategy: SetDeformableNodeState expects ", n,
                  " rows (the deformable nodes) of inverse masses, free and start velocities; got ",
                  inv_mass.size(), ", ", free_velocity.size(), " and ", start_velocity.size());
  for (const Array3& d : inv_mass)
    for (int c = 0; c < 3; ++c)
      if (!(d[c] >= 0.0 && std::isfinite(d[c])))
        TESSERA_ERROR(
            "moreau_jean_strategy: a deformable node's inverse mass must be finite and >= 0, got ",
            d[c]);
  node_inv_mass_ = std::move(inv_mass);
  node_free_velocity_ = std::move(free_velocity);
  node_start_velocity_ = std::move(start_velocity);
  node_state_set_ = true;
}

void MoreauJeanStrategy::SetRankSplit(int rank, int size, std::function<int(const Array3&)> rank_of,
                                      std::function<void(std::vector<double>&)> sum) {
  split_.rank = rank;
  split_.size = size;
  split_.sum = std::move(sum);
  rank_of_ = std::move(rank_of);
}

void MoreauJeanStrategy::SetDeltaTime(double dt) {
  if (!(dt > 0.0)) TESSERA_ERROR("moreau_jean_strategy: the time step must be > 0, got ", dt);
  settings_.delta_time = dt;
}

void MoreauJeanStrategy::ReadFromNodes() {
  ReadParticlesFromNodes(spheres_, particles_);
  // A cluster velocity a process changed moves its members' velocities.
  if (!clusters_.empty() && ReadClustersFromNodes(clusters_, *clusters_part_))
    PlaceClusterMembers(clusters_, particles_, /*positions=*/false);
}

void MoreauJeanStrategy::WriteToNodes() {
  WriteParticlesToNodes(particles_, spheres_);
  if (!clusters_.empty()) WriteClustersToNodes(clusters_, *clusters_part_);
}

void MoreauJeanStrategy::FindContacts(const std::vector<Array3>& q_mid,
                                      const std::vector<Array3>& body_centre,
                                      const NonsmoothBodies& free, const NonsmoothBodies& start) {
  contacts_.clear();
  contact_row_i_.clear();
  contact_row_j_.clear();
  const double h = settings_.delta_time, theta = ns_.theta;
  const std::size_t n = particles_.size();
  double reach = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = particles_.radius[i];
    largest = std::max(largest, r);
    // A member's point moves with its cluster: |V| + |w| (|arm| + r).
    const std::size_t b = BodyOf(i);
    const double arm = Norm(q_mid[i] - body_centre[b]) + r;
    reach = std::max(reach, Norm(free.velocity[b]) + arm * Norm(free.angular_velocity[b]));
  }
  // The predicted gap closes by at most theta h |U_N,free| <= 2 theta h max speed.
  const double tolerance =
      (predicted_gap_ ? 2.0 * theta * h * reach * (1.0 + 1e-6) : 0.0) + 1e-9 * largest;
  const auto params = [&](const PairParameters& p, int a, int b) -> const PairParameters& {
    if (!p.defined) TESSERA_ERROR(table_.DescribeMissingPair(a, b));
    return p;
  };
  // The velocity of body b's point at `arm` from `bodies`.
  const auto point_velocity = [](const NonsmoothBodies& bodies, std::size_t b, const Array3& arm) {
    return bodies.velocity[b] + Cross(bodies.angular_velocity[b], arm);
  };
  const auto finish = [&](std::size_t k, const PairParameters& p, std::uint32_t row_i,
                          std::int64_t row_j) {
    contact_row_i_.push_back(row_i);
    contact_row_j_.push_back(row_j);
    // The impact law's shift from the start-of-step relative velocity U-.
    const std::uint32_t i = contacts_.body_i[k];
    const std::int64_t j = contacts_.body_j[k];
    Array3 u = point_velocity(start, i, contacts_.arm_i[k]);
    if (j >= 0)
      u -= point_velocity(start, static_cast<std::size_t>(j), contacts_.arm_j[k]);
    else
      u -= contacts_.wall_velocity[k];
    const Array3 local = contacts_.frame[k].ToLocal(u);
    contacts_.shift[k] = {p.restitution * std::min(local[0], 0.0),
                          ns_.tangential_restitution * local[1],
                          ns_.tangential_restitution * local[2]};
    contacts_.mu[k] = p.dynamic_friction;
  };
  // Touching within round-off of the coordinates (1e-10 of the reach) counts
  // as touching: spheres laid side by side in a row are all in contact.
  const auto active = [&](double gap, const Array3& n_, const Array3& u_free, double reach) {
    const double slack = 1e-10 * reach;
    if (!predicted_gap_) return gap <= slack;
    return gap + theta * h * std::min(Dot(n_, u_free), 0.0) <= slack;
  };

  std::vector<std::uint32_t> first, second;
  search_.FindParticlePairs(q_mid, particles_.radius, tolerance, first, second);
  for (std::size_t c = 0; c < first.size(); ++c) {
    const std::uint32_t i = first[c], j = second[c];
    const std::size_t bi = BodyOf(i), bj = BodyOf(j);
    if (bi == bj) continue;  // members of one cluster
    const Array3 d = q_mid[i] - q_mid[j];
    const double dist = Norm(d);
    if (!(dist > 0.0))
      TESSERA_ERROR("moreau_jean_strategy: spheres ", particles_.element_id[i], " and ",
                    particles_.element_id[j], " have the same centre");
    const Array3 normal = d / dist;
    const double gap = dist - particles_.radius[i] - particles_.radius[j];
    // One contact point for both spheres, midway between their surfaces: the
    // pair's impulses then have no net moment, and the step conserves angular
    // momentum whatever the gap or overlap. Arms from the bodies' centres.
    // (A free sphere's arm is written from the normal, as its own.)
    const Array3 sphere_arm_i = -(particles_.radius[i] + 0.5 * gap) * normal;
    const Array3 sphere_arm_j = (particles_.radius[j] + 0.5 * gap) * normal;
    const Array3 arm_i = bi == i ? sphere_arm_i : q_mid[i] + sphere_arm_i - body_centre[bi];
    const Array3 arm_j = bj == j ? sphere_arm_j : q_mid[j] + sphere_arm_j - body_centre[bj];
    const Array3 u_free = point_velocity(free, bi, arm_i) - point_velocity(free, bj, arm_j);
    if (!active(gap, normal, u_free, particles_.radius[i] + particles_.radius[j])) continue;
    const auto& p = params(table_.Pair(particles_.material[i], particles_.material[j]),
                           particles_.material[i], particles_.material[j]);
    const std::size_t k =
        contacts_.Add(static_cast<std::uint32_t>(bi), static_cast<std::int64_t>(bj), normal, arm_i,
                      arm_j, Array3{}, gap, (std::uint64_t{i} << 32) | j);
    finish(k, p, i, j);
  }
  if (faces_.size() == 0) return;
  std::vector<std::uint32_t> particle, face;
  search_.FindWallCandidates(q_mid, particles_.radius, faces_.boxes, tolerance, particle, face,
                             true);
  std::size_t first_of_sphere = contacts_.size();
  std::uint32_t sphere = ~0u;
  for (std::size_t c = 0; c < particle.size(); ++c) {
    const std::uint32_t i = particle[c], f = face[c];
    if (i != sphere) sphere = i, first_of_sphere = contacts_.size();
    const double r = particles_.radius[i];
    FaceContactGeometry g;
    FaceContact(faces_, f, q_mid[i], r + tolerance, g);
    if (g.type == FaceContactType::kNone) continue;
    const Array3 normal = -g.normal;
    const double gap = g.distance - r;
    // One contact where faces meet: the same normal and gap as one kept already.
    bool duplicate = false;
    for (std::size_t k = first_of_sphere; k < contacts_.size() && !duplicate; ++k)
      duplicate = Dot(contacts_.frame[k].n, normal) > 1.0 - 1e-10 &&
                  std::abs(contacts_.gap[k] - gap) <= 1e-9 * r;
    if (duplicate) continue;
    Array3 wall_velocity{0.0, 0.0, 0.0};
    const bool deformable = !face_slot_.empty() && face_slot_[f][0] >= 0;
    if (deformable) {
      // The nodes' free velocities (what the wall does without this step's impulses).
      for (int v = 0; v < faces_.vertex_count[f]; ++v)
        wall_velocity += g.weights[v] * node_free_velocity_[face_slot_[f][v]];
    } else {
      for (int v = 0; v < faces_.vertex_count[f]; ++v)
        wall_velocity += g.weights[v] * faces_.velocities[f][v];
    }
    const std::size_t bi = BodyOf(i);
    const Array3 arm_i = bi == i ? -r * normal : q_mid[i] - r * normal - body_centre[bi];
    const Array3 u_free = point_velocity(free, bi, arm_i) - wall_velocity;
    if (!active(gap, normal, u_free, r)) continue;
    const auto& p = params(table_.WallPair(particles_.material[i], faces_.material[f]),
                           particles_.material[i], faces_.material[f]);
    const std::size_t k =
        contacts_.Add(static_cast<std::uint32_t>(bi), -1, normal, arm_i, Array3{}, wall_velocity,
                      gap, (std::uint64_t{i} << 32) | kWallBit | f);
    if (deformable) {
      std::array<std::uint32_t, 4> slots{};
      for (int v = 0; v < faces_.vertex_count[f]; ++v)
        slots[v] = static_cast<std::uint32_t>(face_slot_[f][v]);
      contacts_.AddNodes(k, slots.data(), g.weights.data(), faces_.vertex_count[f]);
      // The impact law's U-: the wall's start-of-step velocity from its nodes.
      Array3 start_wall{0.0, 0.0, 0.0};
      for (int v = 0; v < faces_.vertex_count[f]; ++v)
        start_wall += g.weights[v] * node_start_velocity_[slots[v]];
      contacts_.wall_velocity[k] = start_wall;
      finish(k, p, i, -1);
      contacts_.wall_velocity[k] = wall_velocity;
      continue;
    }
    finish(k, p, i, -1);
  }
}

void MoreauJeanStrategy::RemoveOutsideBoundingBox(double time) {
  if (!settings_.bounding_box || time < settings_.bounding_box_start_time ||
      time > settings_.bounding_box_stop_time)
    return;
  const RowsToKeep keep =
      RowsOutsideBox(particles_, clusters_, settings_.bounding_box_min, settings_.bounding_box_max);
  if (!keep.any_row) return;
  const std::vector<std::uint32_t> new_index =
      RemoveRows(spheres_, particles_, clusters_, keep.rows);
  if (keep.any_cluster) RemoveClusters(*clusters_part_, clusters_, particles_, keep.clusters);
  // Warm-start keys name rows: renumber them, dropping the removed rows'
  // (the map is monotonic, so the keys stay sorted).
  std::size_t out = 0;
  for (std::size_t c = 0; c < previous_keys_.size(); ++c) {
    const std::uint64_t key = previous_keys_[c];
    const auto i = static_cast<std::uint32_t>(key >> 32);
    const auto low = static_cast<std::uint32_t>(key & 0xffffffffu);
    if (new_index[i] == kRemovedRow) continue;
    std::uint64_t renamed = (std::uint64_t{new_index[i]} << 32);
    if (low & kWallBit) {
      renamed |= low;
    } else {
      if (new_index[low] == kRemovedRow) continue;
      renamed |= new_index[low];
    }
    previous_keys_[out] = renamed;
    previous_impulses_[out] = previous_impulses_[c];
    ++out;
  }
  previous_keys_.resize(out);
  previous_impulses_.resize(out);
  // The last step's contacts named the old rows.
  contacts_.clear();
  contact_row_i_.clear();
  contact_row_j_.clear();
}

void MoreauJeanStrategy::SolveSolutionStep(double time) {
  if (!initialized_) TESSERA_ERROR("moreau_jean_strategy: Initialize() before SolveSolutionStep");
  if (walls_) UpdateRigidFaces(*walls_, faces_);
  const double h = settings_.delta_time, theta = ns_.theta;
  const std::size_t n = particles_.size(), nc = clusters_.size();
  const bool forces = !particles_.external_force.empty();
  const bool moments = !particles_.external_moment.empty();
  // Bodies: the rows (a member row is no body: no mass), then the clusters.
  // `start`: the start-of-step velocities only (the impact law's U-).
  NonsmoothBodies bodies, start;
  bodies.velocity.assign(n + nc, Array3{}), bodies.angular_velocity.assign(n + nc, Array3{});
  bodies.inv_mass.assign(n + nc, Array3{}), bodies.inv_inertia.assign(n + nc, Array3{});
  start.velocity.assign(n + nc, Array3{}), start.angular_velocity.assign(n + nc, Array3{});
  std::vector<Array3> q_mid(n), body_centre(n + nc);
  for (std::size_t i = 0; i < n; ++i) {
    if (particles_.cluster[i] != 0) continue;
    const double m = particles_.mass[i], inertia = particles_.inertia[i];
    const std::uint8_t fixed = particles_.fixed[i];
    Array3 f = m * settings_.gravity;
    if (forces) f += particles_.external_force[i];
    const Array3 moment = moments ? particles_.external_moment[i] : Array3{0.0, 0.0, 0.0};
    for (int c = 0; c < 3; ++c) {
      const bool fix_v = fixed & (1u << c), fix_w = fixed & (8u << c);
      bodies.inv_mass[i][c] = fix_v ? 0.0 : 1.0 / m;
      bodies.velocity[i][c] = particles_.velocity[i][c] + (fix_v ? 0.0 : h * f[c] / m);
      const bool turns = settings_.rotation && !fix_w;
      bodies.inv_inertia[i][c] = turns ? 1.0 / inertia : 0.0;
      bodies.angular_velocity[i][c] =
          particles_.angular_velocity[i][c] + (turns ? h * moment[c] / inertia : 0.0);
    }
    q_mid[i] = particles_.position[i] + h * (1.0 - theta) * particles_.velocity[i];
    body_centre[i] = q_mid[i];
    start.velocity[i] = particles_.velocity[i];
    start.angular_velocity[i] = particles_.angular_velocity[i];
  }
  // Clusters: the mid configuration is their motion over h (1 - theta) with
  // the start-of-step V and L; the members are placed there.
  RigidClusters mid = clusters_;
  std::vector<Array3> free_momentum(nc);
  if (nc > 0) {
    bodies.first_tensor_body = n;
    bodies.inv_inertia_tensor.assign(nc, Matrix3{});
    for (std::size_t k = 0; k < nc; ++k) {
      start.velocity[n + k] = clusters_.velocity[k];
      start.angular_velocity[n + k] = clusters_.angular_velocity[k];
    }
    DriftClusters(mid, h * (1.0 - theta), settings_.rotation);
    // Applied loads of the members, with the cluster's weight (as GatherClusterLoads).
    for (std::size_t k = 0; k < nc; ++k) {
      Array3 f = mid.mass[k] * settings_.gravity, t{0.0, 0.0, 0.0};
      for (std::uint32_t m = 0; m < mid.row_count[k]; ++m) {
        const std::uint32_t i = mid.first_row[k] + m;
        const Array3 arm = particles_.position[i] - clusters_.centre[k];
        const Array3 fi = forces ? particles_.external_force[i] : Array3{0.0, 0.0, 0.0};
        f += fi;
        t += Cross(arm, fi);
        if (moments) t += particles_.external_moment[i];
        q_mid[i] = mid.centre[k] + mid.orientation[k].Rotate(mid.member_offset[k][m]);
      }
      const std::size_t b = n + k;
      body_centre[b] = mid.centre[k];
      bodies.inv_mass[b] = Array3{1.0, 1.0, 1.0} * (1.0 / mid.mass[k]);
      bodies.velocity[b] = clusters_.velocity[k] + (h / mid.mass[k]) * f;
      if (settings_.rotation) {
        // J = R diag(1/I) R^T at the mid orientation, column by column.
        Matrix3& inv = bodies.inv_inertia_tensor[k];
        for (int c = 0; c < 3; ++c) {
          Array3 e{0.0, 0.0, 0.0};
          e[c] = 1.0;
          const Array3 col = ClusterAngularVelocity(mid.orientation[k], mid.inertia[k], e);
          for (int r = 0; r < 3; ++r) inv[3 * r + c] = col[r];
        }
        free_momentum[k] = clusters_.angular_momentum[k] + h * t;
        bodies.angular_velocity[b] = Multiply(inv, free_momentum[k]);
      }
    }
  }
  if (!deformable_positions_.empty()) {
    if (!node_state_set_)
      TESSERA_ERROR(
          "moreau_jean_strategy: the deformable walls' nodes have no state for this step "
          "(SetDeformableNodeState before each SolveSolutionStep)");
    bodies.node_velocity = node_free_velocity_;
    bodies.node_inv_mass = node_inv_mass_;
  }
  FindContacts(q_mid, body_centre, bodies, start);
  BuildDelassusBlocks(bodies, contacts_);
  if (ns_.warm_start) {
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      const auto it =
          std::lower_bound(previous_keys_.begin(), previous_keys_.end(), contacts_.key[k]);
      if (it == previous_keys_.end() || *it != contacts_.key[k]) continue;
      const Array3 world = previous_impulses_[it - previous_keys_.begin()];
      Array3 p = contacts_.frame[k].ToLocal(world);
      // Keep the warm start inside the cone of the new frame.
      const double pt = PlaneNorm(p[1], p[2]), mu = contacts_.mu[k];
      if (p[0] <= 0.0) continue;
      if (pt > mu * p[0]) p[1] *= mu * p[0] / pt, p[2] *= mu * p[0] / pt;
      contacts_.impulse[k] = p;
    }
  }
  const NlgsRankSplit* split = nullptr;
  if (rank_of_) {
    split_.contact_rank.resize(contacts_.size());
    for (std::size_t k = 0; k < contacts_.size(); ++k)
      split_.contact_rank[k] = rank_of_(body_centre[contacts_.body_i[k]]);
    split = &split_;
  }
  const NlgsReport report = SolveNlgs(bodies, contacts_, nlgs_, split);
  split_sweep_seconds_ += report.sweep_seconds;
  split_swept_contacts_ += static_cast<double>(report.swept_contacts);
  if (settings_.energy_calculation) {
    // Each impulse's loss, -P . 1/2 (U+ + U-), along the normal and in the
    // tangent plane (the header says why).
    // (The deformable nodes' start velocities lent to `start`, not copied.)
    start.node_velocity.swap(node_start_velocity_);
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      const Array3 p = contacts_.frame[k].ToWorld(contacts_.impulse[k]);
      const Array3 mean =
          0.5 * (ContactVelocity(bodies, contacts_, k) + ContactVelocity(start, contacts_, k));
      const Array3& n = contacts_.frame[k].n;
      const double normal = Dot(p, n) * Dot(mean, n);
      dissipated_normal_ -= normal;
      dissipated_tangential_ -= Dot(p, mean) - normal;
    }
    start.node_velocity.swap(node_start_velocity_);
  }
  if (!deformable_positions_.empty()) {
    // Node a of a contact takes -N_a P (world); the state is used once.
    std::fill(node_impulse_.begin(), node_impulse_.end(), Array3{0.0, 0.0, 0.0});
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      if (contacts_.node_count[k] == 0) continue;
      const Array3 p = contacts_.frame[k].ToWorld(contacts_.impulse[k]);
      for (std::uint32_t a = contacts_.node_begin[k], e = a + contacts_.node_count[k]; a < e; ++a)
        node_impulse_[contacts_.node_slot[a]] -= contacts_.node_weight[a] * p;
    }
    node_state_set_ = false;
  }

  // Positions and rows.
  for (std::size_t i = 0; i < n; ++i) {
    particles_.contact_force[i] = {0.0, 0.0, 0.0};
    particles_.torque[i] = moments ? particles_.external_moment[i] : Array3{0.0, 0.0, 0.0};
    if (particles_.cluster[i] != 0) {
      // (The cluster's weight is counted once, in its own force.)
      particles_.force[i] = forces ? particles_.external_force[i] : Array3{0.0, 0.0, 0.0};
      continue;
    }
    const Array3 x_new = q_mid[i] + h * theta * bodies.velocity[i];
    const Array3 delta = x_new - particles_.position[i];
    particles_.delta_displacement[i] = delta;
    particles_.displacement[i] += delta;
    particles_.position[i] = x_new;
    const Array3 turn =
        h * ((1.0 - theta) * particles_.angular_velocity[i] + theta * bodies.angular_velocity[i]);
    particles_.delta_rotation[i] = turn;
    particles_.rotation_angle[i] += turn;
    particles_.velocity[i] = bodies.velocity[i];
    particles_.angular_velocity[i] = bodies.angular_velocity[i];
    particles_.force[i] = particles_.mass[i] * settings_.gravity;
    if (forces) particles_.force[i] += particles_.external_force[i];
  }
  if (nc > 0) {
    // The end of the step: V+, L+ = I_w(q_m) w+ and the motion over h theta.
    for (std::size_t k = 0; k < nc; ++k) {
      const std::size_t b = n + k;
      mid.velocity[k] = bodies.velocity[b];
      if (!settings_.rotation) continue;
      const Array3 w = bodies.angular_velocity[b];
      const Quaternion q = mid.orientation[k];
      const Array3 body = q.Conjugate().Rotate(w);
      const Array3& inertia = mid.inertia[k];
      mid.angular_velocity[k] = w;
      mid.angular_momentum[k] =
          q.Rotate(Array3{inertia[0] * body[0], inertia[1] * body[1], inertia[2] * body[2]});
    }
    const std::vector<Array3> first_turn = mid.delta_rotation;
    DriftClusters(mid, h * theta, settings_.rotation);
    for (std::size_t k = 0; k < nc; ++k) mid.delta_rotation[k] += first_turn[k];
    clusters_ = std::move(mid);
    PlaceClusterMembers(clusters_, particles_, /*positions=*/true);
  }
  // Mean contact forces over the step (P / h), the end-of-step overlaps and
  // the impulses kept for the next step's warm start.
  MoreauJeanStepReport step;
  step.contacts = contacts_.size();
  step.iterations = report.iterations;
  step.converged = report.converged;
  step.change = report.change;
  step.law_residual = report.law_residual;
  step.interface_contacts = report.interface_contacts;
  step.exchanges = report.exchanges;
  std::vector<std::uint32_t> order(contacts_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return contacts_.key[a] < contacts_.key[b]; });
  previous_keys_.resize(contacts_.size());
  previous_impulses_.resize(contacts_.size());
  for (std::size_t s = 0; s < order.size(); ++s) {
    const std::uint32_t k = order[s];
    const Array3 p = contacts_.frame[k].ToWorld(contacts_.impulse[k]);
    previous_keys_[s] = contacts_.key[k];
    previous_impulses_[s] = p;
    step.max_impulse = std::max(step.max_impulse, Norm(p));
    const std::uint32_t i = contact_row_i_[k];
    const std::int64_t j = contact_row_j_[k];
    const Array3 f = p / h;
    const Array3 n_k = contacts_.frame[k].n;
    particles_.contact_force[i] += f;
    particles_.force[i] += f;
    // The rows' torques about their own centres: a free sphere's arm is its
    // body's, a member's the point's offset from the member's centre (as FindContacts).
    const auto row_arm = [&](std::uint32_t row, const Array3& body_arm, double along) {
      return particles_.cluster[row] == 0 ? body_arm : along * n_k;
    };
    const double half_gap = j >= 0 ? 0.5 * contacts_.gap[k] : 0.0;
    particles_.torque[i] +=
        Cross(row_arm(i, contacts_.arm_i[k], -(particles_.radius[i] + half_gap)), f);
    double gap_end;
    if (j >= 0) {
      const auto row_j = static_cast<std::uint32_t>(j);
      particles_.contact_force[j] -= f;
      particles_.force[j] -= f;
      particles_.torque[j] +=
          Cross(row_arm(row_j, contacts_.arm_j[k], particles_.radius[row_j] + half_gap), -f);
      gap_end = Norm(particles_.position[i] - particles_.position[j]) - particles_.radius[i] -
                particles_.radius[j];
    } else {
      // A plane facet: the gap changes with the normal displacement relative to the wall.
      Array3 wall = contacts_.wall_velocity[k];
      if (contacts_.node_count[k] > 0) {
        wall = {0.0, 0.0, 0.0};
        for (std::uint32_t a = contacts_.node_begin[k], e = a + contacts_.node_count[k]; a < e; ++a)
          wall += contacts_.node_weight[a] * bodies.node_velocity[contacts_.node_slot[a]];
      }
      const Array3 u = particles_.velocity[i] - wall;
      gap_end = contacts_.gap[k] + h * theta * Dot(n_k, u);
    }
    step.max_penetration = std::max(step.max_penetration, -gap_end);
  }
  if (nc > 0) GatherClusterLoads(clusters_, particles_, settings_.gravity);
  RemoveOutsideBoundingBox(time);
  last_ = step;
  history_.push_back(step);
}

double MoreauJeanStrategy::MaximumSpeed() const {
  double s = 0.0;
  for (std::size_t i = 0; i < particles_.size(); ++i) s = std::max(s, Norm(particles_.velocity[i]));
  return s;
}

EnergyTotals MoreauJeanStrategy::Energies() const {
  EnergyTotals e;
  const ParticleStorage& p = particles_;
  const Array3 g = settings_.gravity;
  // Cluster members count with their cluster, not as spheres.
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p.cluster[i] != 0) continue;
    e.kinetic_translational += 0.5 * p.mass[i] * Dot(p.velocity[i], p.velocity[i]);
    e.kinetic_rotational += 0.5 * p.inertia[i] * Dot(p.angular_velocity[i], p.angular_velocity[i]);
    e.gravitational_potential -= p.mass[i] * Dot(g, p.position[i]);
  }
  const RigidClusters& c = clusters_;
  for (std::size_t k = 0; k < c.size(); ++k) {
    e.kinetic_translational += 0.5 * c.mass[k] * Dot(c.velocity[k], c.velocity[k]);
    if (settings_.rotation)
      e.kinetic_rotational += 0.5 * Dot(c.angular_velocity[k], c.angular_momentum[k]);
    e.gravitational_potential -= c.mass[k] * Dot(g, c.centre[k]);
  }
  e.dissipated_damping = dissipated_normal_;
  e.dissipated_friction = dissipated_tangential_;
  return e;
}

// (Member rows carry their cluster's mass: the clusters count once, as bodies.)
double MoreauJeanStrategy::KineticEnergy() const {
  double e = 0.0;
  for (std::size_t i = 0; i < particles_.size(); ++i)
    if (particles_.cluster[i] == 0)
      e += 0.5 * particles_.mass[i] * Dot(particles_.velocity[i], particles_.velocity[i]) +
           0.5 * particles_.inertia[i] *
               Dot(particles_.angular_velocity[i], particles_.angular_velocity[i]);
  for (std::size_t k = 0; k < clusters_.size(); ++k)
    e += 0.5 * clusters_.mass[k] * Dot(clusters_.velocity[k], clusters_.velocity[k]) +
         (settings_.rotation
              ? 0.5 * Dot(clusters_.angular_velocity[k], clusters_.angular_momentum[k])
              : 0.0);
  return e;
}

Array3 MoreauJeanStrategy::LinearMomentum() const {
  Array3 p{0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < particles_.size(); ++i)
    if (particles_.cluster[i] == 0) p += particles_.mass[i] * particles_.velocity[i];
  for (std::size_t k = 0; k < clusters_.size(); ++k) p += clusters_.mass[k] * clusters_.velocity[k];
  return p;
}

Array3 MoreauJeanStrategy::AngularMomentum(const Array3& origin) const {
  Array3 l{0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < particles_.size(); ++i)
    if (particles_.cluster[i] == 0)
      l += Cross(particles_.position[i] - origin, particles_.mass[i] * particles_.velocity[i]) +
           particles_.inertia[i] * particles_.angular_velocity[i];
  for (std::size_t k = 0; k < clusters_.size(); ++k)
    l += Cross(clusters_.centre[k] - origin, clusters_.mass[k] * clusters_.velocity[k]) +
         (settings_.rotation ? clusters_.angular_momentum[k] : Array3{0.0, 0.0, 0.0});
  return l;
}

}  // namespace tessera::dem::nonsmooth
