// Finishing the rows once their forces are in (cross slots, gravity, applied
// loads, background damping) and the update that follows (Velocity Verlet's
// kicks and drift, the one-force schemes' whole step; strategies/row_integration.h
// and row_quads.h for one row and four), and the same for rigid clusters and
// free walls.
#include <algorithm>
#include <string>
#include <type_traits>

#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/gear_scheme.h"
#include "applications/dem/utilities/parallel_rows.h"
#include "kernel/core/error.h"

namespace tessera::dem {

TranslationalScheme TranslationalSchemeFromName(const std::string& name) {
  if (name == "Forward_Euler") return TranslationalScheme::kForwardEuler;
  if (name == "Symplectic_Euler") return TranslationalScheme::kSymplecticEuler;
  if (name == "Taylor_Scheme") return TranslationalScheme::kTaylor;
  if (name == "Velocity_Verlet") return TranslationalScheme::kVelocityVerlet;
  if (name == "Gear_Predictor_Corrector") return TranslationalScheme::kGear;
  TESSERA_ERROR("unknown TranslationalIntegrationScheme '", name,
                "'; expected Forward_Euler, Symplectic_Euler, Taylor_Scheme, Velocity_Verlet or "
                "Gear_Predictor_Corrector");
}

RotationalScheme RotationalSchemeFromName(const std::string& name) {
  if (name == "Direct_Integration") return RotationalScheme::kDirect;
  if (name == "Quaternion_Integration" || name == "Runge_Kutta")
    return RotationalScheme::kSymplectic;
  TESSERA_ERROR("unknown RotationalIntegrationScheme '", name,
                "'; expected Direct_Integration, Quaternion_Integration or Runge_Kutta");
}

const char* TranslationalSchemeName(TranslationalScheme scheme) {
  switch (scheme) {
    case TranslationalScheme::kForwardEuler:
      return "Forward_Euler";
    case TranslationalScheme::kSymplecticEuler:
      return "Symplectic_Euler";
    case TranslationalScheme::kTaylor:
      return "Taylor_Scheme";
    case TranslationalScheme::kVelocityVerlet:
      return "Velocity_Verlet";
    case TranslationalScheme::kGear:
      return "Gear_Predictor_Corrector";
  }
  return "";
}

bool ExplicitSolverStrategy::QuadRowUpdates() const {
  return settings_.tuning.quad_row_updates && RowQuadsAvailable();
}

IntegrationConstants ExplicitSolverStrategy::Integration() const {
  return {settings_.delta_time, settings_.virtual_mass_coefficient,
          settings_.scheme,     settings_.rotational_scheme,
          settings_.rotation,   /*advance_displacement=*/settings_.periodic};
}

bool ExplicitSolverStrategy::DriftInPairPass(bool search) const {
  // The rows are kicked and drifted block by block in block order, which only
  // one thread keeps (ParallelBlocks runs the blocks in order then); nothing
  // may read or move them between the drift and the forces (search, periodic
  // wrap, clusters). The last block drifts every row left, so all rows are
  // drifted when the pass ends, before bonds or GatherForces read them.
  return settings_.scheme == TranslationalScheme::kVelocityVerlet && !search &&
         !settings_.periodic && !ClustersInRun() &&
         (ParallelThreads() == 1 || particles_.size() < kMinimumParallelRows);
}

void ExplicitSolverStrategy::KickAndDrift() {
  const ScopedPhase phase(timings_.integration);
  const double dt = settings_.delta_time;
  const bool rotation = settings_.rotation;
  const IntegrationRows rows(particles_);
  const IntegrationConstants integration = Integration();
  // Independent rows, in blocks of a multiple of four (quads).
  constexpr std::size_t kBlockRows = 1024;
  const std::size_t n = particles_.size();
  if (settings_.scheme == TranslationalScheme::kGear) {
    const GearRows gear(particles_);
    ParallelBlocks(n, (n + kBlockRows - 1) / kBlockRows, [&](std::size_t b) {
      for (std::size_t i = b * kBlockRows; i < std::min(n, (b + 1) * kBlockRows); ++i)
        GearPredictRow(rows, gear, integration, i);
    });
    return;  // (StartGear refuses clusters)
  }
  const bool quads = QuadRowUpdates();
  ParallelBlocks(n, (n + kBlockRows - 1) / kBlockRows, [&](std::size_t b) {
    KickAndDriftRowRange(rows, integration, b * kBlockRows, std::min(n, (b + 1) * kBlockRows),
                         quads);
  });
  if (!clusters_.empty()) {
    KickClusters(clusters_, VirtualMassKick(0.5 * dt), rotation);
    DriftClusters(clusters_, dt, rotation);
    PlaceClusterMembers(clusters_, particles_, /*positions=*/true, periodic_);
  }
}

void ExplicitSolverStrategy::FinishRows(std::size_t begin, std::size_t end, AfterGather then) {
  using Rows = IntegrationRows;
  using Constants = IntegrationConstants;
  const bool quads = QuadRowUpdates();
  switch (then) {
    case AfterGather::kNothing:
      FinishRowRange(
          begin, end, [](const Rows&, const Constants&, std::size_t) {}, quads, QuadUpdate::kNone);
      return;
    case AfterGather::kKick:
      FinishRowRange(
          begin, end, [](const Rows& r, const Constants& k, std::size_t i) { KickRow(r, k, i); },
          quads, QuadUpdate::kKick);
      return;
    case AfterGather::kCorrect: {
      const GearRows gear(particles_);
      FinishRowRange(
          begin, end,
          [&gear](const Rows& r, const Constants& k, std::size_t i) {
            GearCorrectRow(r, gear, k, i);
          },
          /*quads=*/false, QuadUpdate::kNone);
      return;
    }
    case AfterGather::kIntegrate:
      break;
  }
  // The whole step of the run's scheme, `scheme` a std::integral_constant;
  // only Symplectic Euler has a quad update.
  auto integrate = [&](auto scheme) {
    constexpr bool kQuads = decltype(scheme)::value == TranslationalScheme::kSymplecticEuler;
    FinishRowRange(
        begin, end,
        [](const Rows& r, const Constants& k, std::size_t i) {
          IntegrateRow<decltype(scheme)::value>(r, k, i);
        },
        quads && kQuads, QuadUpdate::kSymplecticEuler);
  };
  using Scheme = TranslationalScheme;
  switch (settings_.scheme) {
    case Scheme::kForwardEuler:
      return integrate(std::integral_constant<Scheme, Scheme::kForwardEuler>{});
    case Scheme::kSymplecticEuler:
      return integrate(std::integral_constant<Scheme, Scheme::kSymplecticEuler>{});
    case Scheme::kTaylor:
      return integrate(std::integral_constant<Scheme, Scheme::kTaylor>{});
    case Scheme::kVelocityVerlet:  // (kicked, not integrated, after the forces)
      return integrate(std::integral_constant<Scheme, Scheme::kVelocityVerlet>{});
    case Scheme::kGear:  // (corrected, not integrated, after the forces)
      TESSERA_ERROR(
          "Gear_Predictor_Corrector: the rows are corrected, not integrated, after "
          "the forces");
  }
}

template <class RowUpdate>
void ExplicitSolverStrategy::FinishRowRange(std::size_t begin, std::size_t end, RowUpdate update,
                                            bool quads, QuadUpdate quad_update) {
  ParticleStorage& p = particles_;
  const PairContacts& pc = pairs_;
  const Array3 gravity = settings_.gravity;
  const double alpha = settings_.global_damping;
  const bool planar = settings_.dimension == 2;
  // Raw pointers, taken once (strategies/row_integration.h says why).
  const IntegrationRows rows(p);
  const IntegrationConstants integration = Integration();
  Array3* const contact_force = p.contact_force.data();
  // Null where the elastic forces are not summed (ComputeParticleContacts).
  Array3* const elastic_force = p.elastic_force.empty() ? nullptr : p.elastic_force.data();
  Array3* const total_force = p.force.data();
  Array3* const torque_out = p.torque.data();
  const std::uint32_t* const cross_row_start = pc.cross_row_start.data();
  const std::uint32_t* const cross_row_slot = pc.cross_row_slot.data();
  const Array3* const cross_force = pc.cross_force.data();
  const Array3* const cross_elastic = elastic_force ? pc.cross_elastic.data() : nullptr;
  const Array3* const cross_torque = pc.cross_torque.data();
  double* const damping_power = global_damping_power_.data();
  // Applied loads: absent (zero) unless the model part declares them.
  const Array3* const external_force = p.external_force.empty() ? nullptr : p.external_force.data();
  const Array3* const external_moment =
      p.external_moment.empty() ? nullptr : p.external_moment.data();
  // Four rows at once, their cross slots first added to them row by row (in
  // the order of the loop below); damping and the plane stay row by row.
  quads = quads && !(alpha > 0.0) && !planar;
  const QuadSumColumns quad_sums{contact_force, external_force, external_moment, total_force,
                                 torque_out,    rows.mass,      gravity};
  // Row k's cross slots added to its sums, in slot order; their elastic parts
  // to the row's, where those are summed.
  auto add_cross_slots = [&](std::size_t k, Array3& contact, Array3& torque) {
    for (std::uint32_t s = cross_row_start[k]; s < cross_row_start[k + 1]; ++s) {
      const std::uint32_t slot = cross_row_slot[s];
      contact += cross_force[slot];
      torque += cross_torque[slot];
    }
    if (!elastic_force) return;
    Array3 elastic = elastic_force[k];
    for (std::uint32_t s = cross_row_start[k]; s < cross_row_start[k + 1]; ++s)
      elastic += cross_elastic[cross_row_slot[s]];
    elastic_force[k] = elastic;
  };
  for (std::size_t i = begin; i < end; ++i) {
    if (quads && i + 4 <= end && (quad_update == QuadUpdate::kNone || FreeQuad(rows, i))) {
      for (std::size_t k = i; k < i + 4; ++k) {
        if (cross_row_start[k] == cross_row_start[k + 1]) continue;
        // Summed in locals: accumulated in the rows, every sum would be stored
        // and reloaded per slot.
        Array3 contact = contact_force[k], torque = torque_out[k];
        add_cross_slots(k, contact, torque);
        contact_force[k] = contact;
        torque_out[k] = torque;
      }
      FinishRowQuad(quad_sums, rows, integration, quad_update, i);
      i += 3;
      continue;
    }
    Array3 contact = contact_force[i], torque = torque_out[i];
    add_cross_slots(i, contact, torque);
    Array3 total = contact;
    if (external_force) total += external_force[i];
    total += rows.mass[i] * gravity;
    if (external_moment) torque += external_moment[i];
    if (alpha > 0.0 && rows.Integrated(i)) {
      // Background damping against the motion, proportional to the unbalanced
      // force; nothing on a glued particle (moved by its wall, so it
      // dissipates nothing).
      damping_power[i] =
          ApplyGlobalDamping(settings_.global_damping_form, alpha, rows.fixed[i], rows.velocity[i],
                             rows.angular_velocity[i], total, torque);
    }
    if (planar) {
      // In-plane contacts give in-plane forces and torques about z already; this
      // drops what round-off leaves off the plane so that it cannot build up.
      total[2] = 0.0;
      torque[0] = torque[1] = 0.0;
    }
    total_force[i] = total;
    torque_out[i] = torque;
    contact_force[i] = contact;
    // The update of the row while its data is in cache: one pass and one
    // synchronisation of the threads fewer per step.
    update(rows, integration, i);
  }
}

void ExplicitSolverStrategy::GatherForces(AfterGather then) {
  const std::size_t n = particles_.size();
  const std::size_t block_rows = settings_.tuning.force_block_rows;
  const std::size_t blocks = block_finished_.size();
  ParallelBlocks(n, blocks, [&](std::size_t b) {
    if (block_finished_[b] == 0)
      FinishRows(b * block_rows, std::min(n, (b + 1) * block_rows), then);
  });
}

void ExplicitSolverStrategy::AdvanceClusters(AfterGather then) {
  const double dt = settings_.delta_time;
  const bool rotation = settings_.rotation;
  GatherClusterLoads(clusters_, particles_, settings_.gravity, periodic_);
  switch (then) {
    case AfterGather::kNothing:
    case AfterGather::kCorrect:  // (Gear runs without clusters: StartGear)
      return;
    case AfterGather::kKick:  // Velocity Verlet, second half kick
      KickClusters(clusters_, VirtualMassKick(0.5 * dt), rotation);
      PlaceClusterMembers(clusters_, particles_, /*positions=*/false, periodic_);
      return;
    case AfterGather::kIntegrate:
      switch (settings_.scheme) {
        case TranslationalScheme::kSymplecticEuler:  // v += a dt, x += v dt
          KickClusters(clusters_, VirtualMassKick(dt), rotation);
          DriftClusters(clusters_, dt, rotation);
          break;
        case TranslationalScheme::kForwardEuler:  // x += v dt, v += a dt
          DriftClusters(clusters_, dt, rotation);
          KickClusters(clusters_, VirtualMassKick(dt), rotation);
          break;
        case TranslationalScheme::kTaylor:  // x += v dt + a dt²/2, v += a dt
        case TranslationalScheme::kVelocityVerlet:
        case TranslationalScheme::kGear:  // (not reached: StartGear)
          KickClusters(clusters_, VirtualMassKick(0.5 * dt), rotation);
          DriftClusters(clusters_, dt, rotation);
          KickClusters(clusters_, VirtualMassKick(0.5 * dt), rotation);
          break;
      }
      PlaceClusterMembers(clusters_, particles_, /*positions=*/true, periodic_);
      return;
  }
}

void ExplicitSolverStrategy::AdvanceFreeWalls(double time) {
  // The loads are those of the last force evaluation, as the particles' are
  // when they move: for the one-force schemes this is the whole step, after the
  // forces (the faces are re-read at the start of the next step); for Velocity
  // Verlet the first half kick and the drift, before the forces.
  const double dt = settings_.delta_time;
  const Array3 g = settings_.gravity;
  for (FreeRigidWall& body : free_walls_) {
    switch (settings_.scheme) {
      case TranslationalScheme::kSymplecticEuler:  // v += a dt, x += v dt
        KickFreeWall(body, g, VirtualMassKick(dt), time);
        DriftFreeWall(body, dt, time);
        break;
      case TranslationalScheme::kForwardEuler:  // x += v dt, v += a dt
        DriftFreeWall(body, dt, time);
        KickFreeWall(body, g, VirtualMassKick(dt), time);
        break;
      case TranslationalScheme::kGear:  // predicted; corrected after the forces
        GearPredictFreeWall(body, dt, settings_.virtual_mass_coefficient, time);
        break;
      case TranslationalScheme::kTaylor:          // x += v dt + a dt²/2, v += a dt
      case TranslationalScheme::kVelocityVerlet:  // the second half kick follows the forces
        KickFreeWall(body, g, VirtualMassKick(0.5 * dt), time);
        DriftFreeWall(body, dt, time);
        if (settings_.scheme == TranslationalScheme::kTaylor)
          KickFreeWall(body, g, VirtualMassKick(0.5 * dt), time);
        break;
    }
    PlaceFreeWallNodes(*walls_, body);
  }
}

void ExplicitSolverStrategy::StartGear() {
  if (!clusters_.empty())
    TESSERA_ERROR(
        "TranslationalIntegrationScheme Gear_Predictor_Corrector moves spheres; the "
        "model has Cluster3D elements (element ",
        clusters_.element_id[0], "): choose Velocity_Verlet or Symplectic_Euler for clusters");
  const std::size_t n = particles_.size();
  const bool angular =
      settings_.rotation && settings_.rotational_scheme == RotationalScheme::kDirect;
  particles_.has_gear = true;
  particles_.has_gear_angular = angular;
  for (auto& column : particles_.gear) column.assign(n, Array3{});
  for (auto& column : particles_.gear_angular) column.assign(angular ? n : 0, Array3{});
  StartGearRows(0);
}

void ExplicitSolverStrategy::StartGearRows(std::size_t first) {
  if (!particles_.has_gear) return;
  const IntegrationRows rows(particles_);
  const GearRows gear(particles_);
  const IntegrationConstants integration = Integration();
  for (std::size_t i = first; i < particles_.size(); ++i) GearStartRow(rows, gear, integration, i);
}

}  // namespace tessera::dem
