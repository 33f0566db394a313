// What a run measures: energies (kinetic, potential, elastic, dissipated), the
// time-step estimate, contact counts and the memory the strategy holds.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "applications/dem/dem_variables.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/utilities/parallel_rows.h"
#include "kernel/core/error.h"

namespace tessera::dem {

MemoryReport ExplicitSolverStrategy::HeldMemory() const {
  MemoryReport report;
  report.rows = particles_.HeldBytes();
  report.pair_contacts = pairs_.HeldBytes();
  report.wall_contacts = wall_contacts_.HeldBytes();
  report.search = search_.HeldBytes() + insertion_search_.HeldBytes();
  report.scratch = VectorBytes(scratch_first_, scratch_second_, scratch_cursor_,
                               wall_scratch_particle_, wall_scratch_face_);
  report.other = VectorBytes(global_damping_power_, pair_dissipation_, search_position_,
                             search_face_points_, stress_moments_, stress_faces_);
  return report;
}

void ExplicitSolverStrategy::AccumulateDissipation() {
  const ScopedPhase phase(timings_.energy);
  const double dt = settings_.delta_time;
  // Deterministic sums (fixed order for any thread count): the pair contacts'
  // powers per particle (summed in contact order by ComputeParticleContacts),
  // the wall contacts' per contact, the background damping's per particle.
  // In a distributed run only the counted (owned) rows and their contacts
  // (counted_rows_); adding the others' zeros leaves the sums' bits alone.
  const std::uint8_t* const counted = CountedRows();
  auto add = [&](double DissipationPower::*term, double EnergyTotals::*total) {
    const WallContacts& wc = wall_contacts_;
    const double pairs = SumRows(particles_.size(), [&](std::size_t i) {
      return !counted || counted[i] ? pair_dissipation_[i].*term : 0.0;
    });
    const double walls = SumRows(wc.particle.size(), [&](std::size_t c) {
      return wc.active[c] && (!counted || counted[wc.particle[c]]) ? wc.dissipation[c].*term : 0.0;
    });
    dissipated_.*total += dt * (pairs + walls);
  };
  add(&DissipationPower::damping, &EnergyTotals::dissipated_damping);
  add(&DissipationPower::friction, &EnergyTotals::dissipated_friction);
  add(&DissipationPower::rolling, &EnergyTotals::dissipated_rolling);
  if (!counted) {
    dissipated_.dissipated_damping += dt * bond_power_.damping;
    dissipated_.dissipated_friction += dt * bond_power_.friction;
  } else if (!bonds_.empty()) {
    // The bonds whose first sphere is counted, from their per-bond powers.
    const ContinuumBonds& b = bonds_;
    auto bond_sum = [&](const std::vector<double>& power) {
      return SumRows(b.size(), [&](std::size_t k) { return counted[b.first[k]] ? power[k] : 0.0; });
    };
    dissipated_.dissipated_damping += dt * bond_sum(b.damping_power);
    dissipated_.dissipated_friction += dt * bond_sum(b.friction_power);
  }
  if (settings_.global_damping > 0.0)
    dissipated_.dissipated_global_damping +=
        dt * SumRows(particles_.size(), [&](std::size_t i) {
          return !counted || counted[i] ? global_damping_power_[i] : 0.0;
        });
}

const std::uint8_t* ExplicitSolverStrategy::CountedRows() const {
  if (!counted_rows_) return nullptr;
  if (counted_rows_->size() != particles_.size())
    TESSERA_ERROR("ExplicitSolverStrategy: the counted rows (", counted_rows_->size(),
                  ") of a distributed run do not match its ", particles_.size(), " rows");
  return counted_rows_->data();
}

double ExplicitSolverStrategy::MaximumSpeed() const {
  double speed = 0.0;
  for (const Array3& v : particles_.velocity) speed = std::max(speed, Norm(v));
  return speed;
}

double ExplicitSolverStrategy::KineticEnergy() const {
  const ParticleStorage& p = particles_;
  if (!clusters_.empty()) {  // members count with their cluster
    const EnergyTotals e = Energies();
    return e.kinetic_translational + e.kinetic_rotational;
  }
  return SumRows(p.size(), [&](std::size_t i) {
    return 0.5 * p.mass[i] * Dot(p.velocity[i], p.velocity[i]) +
           0.5 * p.inertia[i] * Dot(p.angular_velocity[i], p.angular_velocity[i]);
  });
}

double ExplicitSolverStrategy::ContactElasticEnergy() const {
  const EnergyTotals e = Energies();
  return e.elastic_normal + e.elastic_tangential;
}

EnergyTotals ExplicitSolverStrategy::Energies() const {
  EnergyTotals e = dissipated_;
  const ParticleStorage& p = particles_;
  // A distributed run: this rank's rows and contacts only (counted_rows_).
  const std::uint8_t* const counted = CountedRows();
  const auto skip = [&](std::size_t row) { return counted && !counted[row]; };
  // Cluster members count with their cluster (below), not as spheres.
  e.kinetic_translational = SumRows(p.size(), [&](std::size_t i) {
    return p.cluster[i] != 0 || skip(i) ? 0.0 : 0.5 * p.mass[i] * Dot(p.velocity[i], p.velocity[i]);
  });
  e.kinetic_rotational = SumRows(p.size(), [&](std::size_t i) {
    return p.cluster[i] != 0 || skip(i)
               ? 0.0
               : 0.5 * p.inertia[i] * Dot(p.angular_velocity[i], p.angular_velocity[i]);
  });
  const Array3 g = settings_.gravity;
  e.gravitational_potential = SumRows(p.size(), [&](std::size_t i) {
    return p.cluster[i] != 0 || skip(i) ? 0.0 : -p.mass[i] * Dot(g, p.position[i]);
  });
  const RigidClusters& c = clusters_;
  for (std::size_t k = 0; k < c.size(); ++k) {
    if (skip(c.first_row[k])) continue;  // a ghost cluster: its owner counts it
    e.kinetic_translational += 0.5 * c.mass[k] * Dot(c.velocity[k], c.velocity[k]);
    e.kinetic_rotational += 0.5 * Dot(c.angular_velocity[k], c.angular_momentum[k]);
    e.gravitational_potential -= c.mass[k] * Dot(g, c.centre[k]);
  }
  // Free walls are bodies of the system like the particles.
  // (A distributed run counts them on one rank: counts_free_walls_.)
  for (std::size_t k = 0; counts_free_walls_ && k < free_walls_.size(); ++k) {
    const FreeRigidWall& body = free_walls_[k];
    e.kinetic_translational += 0.5 * body.mass * Dot(body.velocity, body.velocity);
    e.kinetic_rotational += 0.5 * Dot(body.angular_velocity, body.angular_momentum);
    e.gravitational_potential -= body.mass * Dot(g, body.centre);
  }
  auto stored = [&](const auto& contacts, std::size_t n, const std::vector<double>& values) {
    return SumRows(n, [&](std::size_t c) {
      return contacts.active[c] && !skip(contacts.particle[c]) ? values[c] : 0.0;
    });
  };
  // The sphere pairs' from their histories (NormalElasticEnergy), the wall
  // contacts' as stored at their last evaluation.
  const PairContacts& pc = pairs_;
  e.elastic_normal = SumRows(pc.first.size(),
                             [&](std::size_t c) {
                               if (!pc.state[c] || skip(pc.first[c])) return 0.0;
                               const PairParameters& pair =
                                   table_.Pair(p.material[pc.first[c]], p.material[pc.second[c]]);
                               return NormalElasticEnergy(pair, pc.history[c].normal_elastic_force,
                                                          pc.history[c].tangential_stiffness);
                             }) +
                     stored(wall_contacts_, wall_contacts_.particle.size(), wall_contacts_.energy);
  // The tangential spring's energy |F_te|² / (2 k_t) from the history the
  // contact keeps anyway (spring force and k_t of the last evaluation).
  auto spring_energy = [](bool active, const Array3& spring, double kt) {
    return active && kt > 0.0 ? 0.5 * Dot(spring, spring) / kt : 0.0;
  };
  const WallContacts& wc = wall_contacts_;
  e.elastic_tangential = SumRows(pc.first.size(),
                                 [&](std::size_t c) {
                                   const PairHistory& h = pc.history[c];
                                   return spring_energy(pc.state[c] != 0 && !skip(pc.first[c]),
                                                        h.tangential_force, h.tangential_stiffness);
                                 }) +
                         SumRows(wc.particle.size(), [&](std::size_t c) {
                           return spring_energy(wc.active[c] != 0 && !skip(wc.particle[c]),
                                                wc.tangential_force[c], wc.tangential_stiffness[c]);
                         });
  const BondEnergy bonds = bonds_.ElasticEnergy(counted);
  e.elastic_normal += bonds.normal;
  e.elastic_tangential += bonds.tangential;
  return e;
}

std::size_t ExplicitSolverStrategy::NumberOfParticleContacts() const {
  return static_cast<std::size_t>(std::count_if(pairs_.state.begin(), pairs_.state.end(),
                                                [](std::uint8_t s) { return s != 0; }));
}

std::size_t ExplicitSolverStrategy::NumberOfWallContacts() const {
  return static_cast<std::size_t>(
      std::count(wall_contacts_.active.begin(), wall_contacts_.active.end(), 1));
}

TimeStepEstimate ExplicitSolverStrategy::EstimateTimeStep(double reference_speed) const {
  TimeStepEstimate estimate;
  estimate.reference_speed = reference_speed;
  estimate.critical_time_step = std::numeric_limits<double>::infinity();
  estimate.contact_time = std::numeric_limits<double>::infinity();
  // The smallest sphere of each material has the fastest contacts (t_c grows
  // like the radius at a given speed and density).
  const std::size_t nm = table_.size();
  std::vector<double> radius(nm, 0.0), mass(nm, 0.0);
  for (std::size_t i = 0; i < particles_.size(); ++i) {
    const int m = particles_.material[i];
    if (radius[m] == 0.0 || particles_.radius[i] < radius[m]) {
      radius[m] = particles_.radius[i];
      mass[m] = particles_.mass[i];
    }
  }
  // Spheres still to come (inlets) with their smallest radius.
  for (const auto& [properties, r] : registered_materials_) {
    const int m = material_index_.Find(properties);
    if (m < 0 || !(r > 0.0) || (radius[m] != 0.0 && radius[m] <= r)) continue;
    radius[m] = r;
    mass[m] = properties->GetValue(PARTICLE_DENSITY) * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  }
  std::vector<bool> is_wall_material(nm, false);
  for (int m : faces_.material) is_wall_material[m] = true;
  for (std::size_t a = 0; a < nm; ++a) {
    if (radius[a] == 0.0) continue;  // not a particle material in use
    // Each other material as a sphere and, where faces use it (spheres and
    // walls may share one), as a wall.
    for (std::size_t b = 0; b < nm; ++b)
      for (const bool wall : {false, true}) {
        if (wall ? !is_wall_material[b] : (radius[b] == 0.0 || b < a)) continue;
        const PairParameters& pair = wall
                                         ? table_.WallPair(static_cast<int>(a), static_cast<int>(b))
                                         : table_.Pair(static_cast<int>(a), static_cast<int>(b));
        if (!pair.defined) continue;
        const double r = wall ? radius[a] : radius[a] * radius[b] / (radius[a] + radius[b]);
        // Virtual mass: the spheres respond as if their masses were m / c.
        const double m = (wall ? mass[a] : mass[a] * mass[b] / (mass[a] + mass[b])) /
                         settings_.virtual_mass_coefficient;
        const ContactTimeEstimate impact =
            EstimateContactTime(pair, r, m, reference_speed);  // the law's (laws/)
        const double kn = impact.normal_stiffness, tc = impact.contact_time;
        // The tangential spring acts on a reduced mass (translation and rotation of
        // a solid sphere: 1/m + R^2/I = 3.5/m; of a disc, I = m R^2 / 2: 3/m); take
        // the stiffer of the two modes.
        const double kt = kn * 4.0 * pair.effective_shear / pair.effective_young;
        const double reduced = settings_.dimension == 2 ? 3.0 : 3.5;
        const double omega = std::max(std::sqrt(kn / m), std::sqrt(kt * reduced / m));
        const double xi = pair.damping_ratio;
        const double critical = 2.0 / omega * (std::sqrt(1.0 + xi * xi) - xi);
        estimate.critical_time_step = std::min(estimate.critical_time_step, critical);
        if (tc < estimate.contact_time) {
          estimate.contact_time = tc;
          estimate.contact_time_pair = "material " +
                                       std::to_string(material_index_.List()[a]->Id()) +
                                       (wall ? " against wall material " : " against material ") +
                                       std::to_string(material_index_.List()[b]->Id());
        }
      }
  }
  // Bonds: a bonded sphere vibrates faster than one bond says (continuum_bonds.h).
  if (!bonds_.empty())
    estimate.critical_time_step =
        std::min(estimate.critical_time_step,
                 bonds_.CriticalTimeStep(particles_, settings_.virtual_mass_coefficient));
  return estimate;
}

}  // namespace tessera::dem
