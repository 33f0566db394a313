// The Moreau-Jean time stepping of the DEM spheres (moreau_jean_strategy.h).
#include "applications/dem/nonsmooth/moreau_jean_strategy.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernel/core/error.h"
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
  if (!(ns_.tangential_restitution >= 0.0 && ns_.tangential_restitution <= 1.0))
    TESSERA_ERROR(where, ".tangential_restitution must be in [0, 1], got ",
                  ns_.tangential_restitution);
  nlgs_.relaxation = ns_.relaxation;
  nlgs_.tolerance = ns_.tolerance;
  nlgs_.max_iterations = ns_.max_iterations;
  nlgs_.seed = ns_.seed;
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
  FillParticles(spheres_, material_index_, particles_, 3);
  const std::size_t particle_materials = material_index_.size();
  if (walls_) FillRigidFaces(*walls_, material_index_, faces_, 3);
  std::vector<bool> is_wall(material_index_.size(), false);
  for (std::size_t k = particle_materials; k < is_wall.size(); ++k) is_wall[k] = true;
  table_.Build(material_index_.List(), is_wall);
  initialized_ = true;
}

void MoreauJeanStrategy::SetDeltaTime(double dt) {
  if (!(dt > 0.0)) TESSERA_ERROR("moreau_jean_strategy: the time step must be > 0, got ", dt);
  settings_.delta_time = dt;
}

void MoreauJeanStrategy::ReadFromNodes() { ReadParticlesFromNodes(spheres_, particles_); }
void MoreauJeanStrategy::WriteToNodes() { WriteParticlesToNodes(particles_, spheres_); }

void MoreauJeanStrategy::FindContacts(const std::vector<Array3>& q_mid,
                                      const NonsmoothBodies& free) {
  contacts_.clear();
  const double h = settings_.delta_time, theta = ns_.theta;
  const std::size_t n = particles_.size();
  double reach = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = particles_.radius[i];
    largest = std::max(largest, r);
    reach = std::max(reach, Norm(free.velocity[i]) + r * Norm(free.angular_velocity[i]));
  }
  // The predicted gap closes by at most theta h |U_N,free| <= 2 theta h max speed.
  const double tolerance =
      (predicted_gap_ ? 2.0 * theta * h * reach * (1.0 + 1e-6) : 0.0) + 1e-9 * largest;
  const auto params = [&](const PairParameters& p, int a, int b) -> const PairParameters& {
    if (!p.defined) TESSERA_ERROR(table_.DescribeMissingPair(a, b));
    return p;
  };
  const auto finish = [&](std::size_t k, const PairParameters& p) {
    // The impact law's shift from the start-of-step relative velocity U-.
    const std::uint32_t i = contacts_.body_i[k];
    const std::int64_t j = contacts_.body_j[k];
    Array3 u = particles_.velocity[i] + Cross(particles_.angular_velocity[i], contacts_.arm_i[k]);
    if (j >= 0)
      u -= particles_.velocity[j] + Cross(particles_.angular_velocity[j], contacts_.arm_j[k]);
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
    const Array3 d = q_mid[i] - q_mid[j];
    const double dist = Norm(d);
    if (!(dist > 0.0))
      TESSERA_ERROR("moreau_jean_strategy: spheres ", particles_.element_id[i], " and ",
                    particles_.element_id[j], " have the same centre");
    const Array3 normal = d / dist;
    const double gap = dist - particles_.radius[i] - particles_.radius[j];
    // One contact point for both spheres, midway between their surfaces: the
    // pair's impulses then have no net moment, and the step conserves angular
    // momentum whatever the gap or overlap.
    const Array3 arm_i = -(particles_.radius[i] + 0.5 * gap) * normal;
    const Array3 arm_j = (particles_.radius[j] + 0.5 * gap) * normal;
    const Array3 u_free = (free.velocity[i] + Cross(free.angular_velocity[i], arm_i)) -
                          (free.velocity[j] + Cross(free.angular_velocity[j], arm_j));
    if (!active(gap, normal, u_free, particles_.radius[i] + particles_.radius[j])) continue;
    const auto& p = params(table_.Pair(particles_.material[i], particles_.material[j]),
                           particles_.material[i], particles_.material[j]);
    const std::size_t k =
        contacts_.Add(i, j, normal, arm_i, arm_j, Array3{}, gap, (std::uint64_t{i} << 32) | j);
    finish(k, p);
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
    for (int v = 0; v < faces_.vertex_count[f]; ++v)
      wall_velocity += g.weights[v] * faces_.velocities[f][v];
    const Array3 arm_i = -r * normal;
    const Array3 u_free = free.velocity[i] + Cross(free.angular_velocity[i], arm_i) - wall_velocity;
    if (!active(gap, normal, u_free, r)) continue;
    const auto& p = params(table_.WallPair(particles_.material[i], faces_.material[f]),
                           particles_.material[i], faces_.material[f]);
    const std::size_t k = contacts_.Add(i, -1, normal, arm_i, Array3{}, wall_velocity, gap,
                                        (std::uint64_t{i} << 32) | kWallBit | f);
    finish(k, p);
  }
}

void MoreauJeanStrategy::SolveSolutionStep(double /*time*/) {
  if (!initialized_) TESSERA_ERROR("moreau_jean_strategy: Initialize() before SolveSolutionStep");
  if (walls_) UpdateRigidFaces(*walls_, faces_);
  const double h = settings_.delta_time, theta = ns_.theta;
  const std::size_t n = particles_.size();
  const bool forces = !particles_.external_force.empty();
  const bool moments = !particles_.external_moment.empty();
  NonsmoothBodies bodies;
  bodies.velocity.resize(n), bodies.angular_velocity.resize(n);
  bodies.inv_mass.resize(n), bodies.inv_inertia.resize(n);
  std::vector<Array3> q_mid(n);
  for (std::size_t i = 0; i < n; ++i) {
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
  }
  FindContacts(q_mid, bodies);
  BuildDelassusBlocks(bodies, contacts_);
  if (ns_.warm_start) {
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      const auto it =
          std::lower_bound(previous_keys_.begin(), previous_keys_.end(), contacts_.key[k]);
      if (it == previous_keys_.end() || *it != contacts_.key[k]) continue;
      const Array3 world = previous_impulses_[it - previous_keys_.begin()];
      Array3 p = contacts_.frame[k].ToLocal(world);
      // Keep the warm start inside the cone of the new frame.
      const double pt = std::hypot(p[1], p[2]), mu = contacts_.mu[k];
      if (p[0] <= 0.0) continue;
      if (pt > mu * p[0]) p[1] *= mu * p[0] / pt, p[2] *= mu * p[0] / pt;
      contacts_.impulse[k] = p;
    }
  }
  const NlgsReport report = SolveNlgs(bodies, contacts_, nlgs_);

  // Positions and rows.
  for (std::size_t i = 0; i < n; ++i) {
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
    particles_.contact_force[i] = {0.0, 0.0, 0.0};
    particles_.torque[i] = moments ? particles_.external_moment[i] : Array3{0.0, 0.0, 0.0};
    particles_.force[i] = particles_.mass[i] * settings_.gravity;
    if (forces) particles_.force[i] += particles_.external_force[i];
  }
  // Mean contact forces over the step (P / h), the end-of-step overlaps and
  // the impulses kept for the next step's warm start.
  MoreauJeanStepReport step;
  step.contacts = contacts_.size();
  step.iterations = report.iterations;
  step.converged = report.converged;
  step.change = report.change;
  step.law_residual = report.law_residual;
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
    const std::uint32_t i = contacts_.body_i[k];
    const std::int64_t j = contacts_.body_j[k];
    const Array3 f = p / h;
    particles_.contact_force[i] += f;
    particles_.force[i] += f;
    particles_.torque[i] += Cross(contacts_.arm_i[k], f);
    double gap_end;
    if (j >= 0) {
      particles_.contact_force[j] -= f;
      particles_.force[j] -= f;
      particles_.torque[j] += Cross(contacts_.arm_j[k], -f);
      gap_end = Norm(particles_.position[i] - particles_.position[j]) - particles_.radius[i] -
                particles_.radius[j];
    } else {
      // A plane facet: the gap changes with the normal displacement relative to the wall.
      const Array3 u = particles_.velocity[i] - contacts_.wall_velocity[k];
      gap_end = contacts_.gap[k] + h * theta * Dot(contacts_.frame[k].n, u);
    }
    step.max_penetration = std::max(step.max_penetration, -gap_end);
  }
  last_ = step;
  history_.push_back(step);
}

double MoreauJeanStrategy::MaximumSpeed() const {
  double s = 0.0;
  for (std::size_t i = 0; i < particles_.size(); ++i) s = std::max(s, Norm(particles_.velocity[i]));
  return s;
}

double MoreauJeanStrategy::KineticEnergy() const {
  double e = 0.0;
  for (std::size_t i = 0; i < particles_.size(); ++i)
    e += 0.5 * particles_.mass[i] * Dot(particles_.velocity[i], particles_.velocity[i]) +
         0.5 * particles_.inertia[i] *
             Dot(particles_.angular_velocity[i], particles_.angular_velocity[i]);
  return e;
}

Array3 MoreauJeanStrategy::LinearMomentum() const {
  Array3 p{0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < particles_.size(); ++i)
    p += particles_.mass[i] * particles_.velocity[i];
  return p;
}

Array3 MoreauJeanStrategy::AngularMomentum(const Array3& origin) const {
  Array3 l{0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < particles_.size(); ++i)
    l += Cross(particles_.position[i] - origin, particles_.mass[i] * particles_.velocity[i]) +
         particles_.inertia[i] * particles_.angular_velocity[i];
  return l;
}

}  // namespace tessera::dem::nonsmooth
