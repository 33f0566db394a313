// Time integration of the spheres' rows: the translational and rotational
// schemes by Kratos' names, and the update of one row for each stage of a step
// (the whole step of the one-force schemes; Velocity Verlet's half kick with
// drift before the forces and its second half kick after them).
//
// The updates read and write the rows through raw pointers taken once per
// pass (IntegrationRows). Through ParticleStorage every access went through a
// RowColumn's pointer to its vector, reloaded after every store, and the
// per-row functions were not inlined into the loop: the passes took a fifth
// of a packed-bed step. The arithmetic is unchanged, operation for operation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "applications/dem/particles/particle_storage.h"
#include "kernel/core/array3.h"

namespace tessera::dem {

enum class TranslationalScheme : std::uint8_t {
  kForwardEuler,
  kSymplecticEuler,
  kTaylor,
  kVelocityVerlet
};
// Kratos' names: Forward_Euler, Symplectic_Euler, Taylor_Scheme, Velocity_Verlet.
TranslationalScheme TranslationalSchemeFromName(const std::string& name);
const char* TranslationalSchemeName(TranslationalScheme scheme);

// How spheres turn (Kratos' RotationalIntegrationScheme). Clusters always take
// the RK-4 quaternion scheme (particles/rigid_clusters.h).
enum class RotationalScheme : std::uint8_t {
  // Direct_Integration: ω and the rotation angle with the translational scheme.
  kDirect,
  // Quaternion_Integration, Runge_Kutta: Kratos' schemes reduce, for a sphere
  // (isotropic inertia, no gyroscopic term), to ω += T Δt / I, Δθ = ω Δt
  // whatever the translational scheme; with Velocity_Verlet that update comes
  // after the force evaluation (Kratos' "correct" stage), the drift does not turn.
  kSymplectic,
};
RotationalScheme RotationalSchemeFromName(const std::string& name);

// What every row's update shares.
struct IntegrationConstants {
  double dt;
  double virtual_mass;  // VirtualMassCoefficient: accelerations are c F/m, c T/I
  TranslationalScheme scheme;
  RotationalScheme rotational_scheme;
  bool rotation;  // RotationOption
};

// The columns a row's update reads and writes.
struct IntegrationRows {
  Array3 *position, *velocity, *angular_velocity, *displacement, *delta_displacement,
      *delta_rotation, *rotation_angle;
  const Array3 *force, *torque;
  const double *mass, *inertia;
  const std::uint8_t* fixed;
  const std::uint32_t *glued, *cluster;

  explicit IntegrationRows(ParticleStorage& p)
      : position(p.position.data()),
        velocity(p.velocity.data()),
        angular_velocity(p.angular_velocity.data()),
        displacement(p.displacement.data()),
        delta_displacement(p.delta_displacement.data()),
        delta_rotation(p.delta_rotation.data()),
        rotation_angle(p.rotation_angle.data()),
        force(p.force.data()),
        torque(p.torque.data()),
        mass(p.mass.data()),
        inertia(p.inertia.data()),
        fixed(p.fixed.data()),
        glued(p.glued.data()),
        cluster(p.cluster.data()) {}

  // Glued spheres go with their wall, cluster members with their cluster.
  bool Integrated(std::size_t i) const { return glued[i] == 0 && cluster[i] == 0; }
};

// Whether dof `bit` (FixedBits) of a row with flags `fixed` is imposed. The
// flags are read once per row: a byte may alias anything, so every store of
// the update would otherwise reload them.
inline bool FixedDof(std::uint8_t fixed, int bit) { return (fixed >> bit) & 1u; }

// The whole step of Forward Euler, Symplectic Euler or Taylor on row i.
[[gnu::always_inline]] inline void IntegrateRow(const IntegrationRows& r,
                                                const IntegrationConstants& k, std::size_t i) {
  if (!r.Integrated(i)) return;
  const double dt = k.dt;
  // One scalar component: returns the increment of the coordinate, updates v.
  auto advance = [scheme = k.scheme, dt](double& v, double a, bool fixed) {
    if (fixed) return v * dt;
    double increment = 0.0;
    switch (scheme) {
      case TranslationalScheme::kForwardEuler:
        increment = v * dt;
        v += a * dt;
        break;
      case TranslationalScheme::kSymplecticEuler:
        v += a * dt;
        increment = v * dt;
        break;
      case TranslationalScheme::kTaylor:
        increment = v * dt + 0.5 * a * dt * dt;
        v += a * dt;
        break;
      case TranslationalScheme::kVelocityVerlet:
        break;  // not used here
    }
    return increment;
  };
  const std::uint8_t fixed = r.fixed[i];
  const double inv_mass = k.virtual_mass / r.mass[i];
  Array3 dx;
  for (int c = 0; c < 3; ++c)
    dx[c] = advance(r.velocity[i][c], r.force[i][c] * inv_mass, FixedDof(fixed, c));
  r.position[i] += dx;
  r.displacement[i] += dx;
  r.delta_displacement[i] = dx;
  Array3 dtheta{};
  if (k.rotation) {
    const double inv_inertia = k.virtual_mass / r.inertia[i];
    const bool symplectic = k.rotational_scheme == RotationalScheme::kSymplectic;
    for (int c = 0; c < 3; ++c) {
      double& w = r.angular_velocity[i][c];
      const double alpha = r.torque[i][c] * inv_inertia;
      if (!symplectic) {
        dtheta[c] = advance(w, alpha, FixedDof(fixed, 3 + c));
        continue;
      }
      if (!FixedDof(fixed, 3 + c)) w += alpha * dt;
      dtheta[c] = w * dt;
    }
  }
  r.delta_rotation[i] = dtheta;
  r.rotation_angle[i] += dtheta;
}

// Velocity Verlet before the forces: half kick and drift of row i (and, with
// Direct_Integration, of its rotation).
[[gnu::always_inline]] inline void KickAndDriftRow(const IntegrationRows& r,
                                                   const IntegrationConstants& k, std::size_t i) {
  if (!r.Integrated(i)) return;
  const double dt = k.dt;
  const std::uint8_t fixed = r.fixed[i];
  const double inv_mass = k.virtual_mass / r.mass[i];
  Array3 velocity = r.velocity[i];
  if (fixed == 0) {
    velocity += (0.5 * dt * inv_mass) * r.force[i];
  } else {
    for (int c = 0; c < 3; ++c)
      if (!FixedDof(fixed, c)) velocity[c] += 0.5 * dt * r.force[i][c] * inv_mass;
  }
  r.velocity[i] = velocity;
  const Array3 dx = velocity * dt;
  r.position[i] += dx;
  r.displacement[i] += dx;
  r.delta_displacement[i] = dx;
  // (The symplectic sphere rotation turns after the forces, in KickRow.)
  if (k.rotational_scheme != RotationalScheme::kDirect) return;
  Array3 dtheta{};
  if (k.rotation) {
    const double inv_inertia = k.virtual_mass / r.inertia[i];
    Array3 spin = r.angular_velocity[i];
    for (int c = 0; c < 3; ++c) {
      if (!FixedDof(fixed, 3 + c)) spin[c] += 0.5 * dt * r.torque[i][c] * inv_inertia;
      dtheta[c] = spin[c] * dt;
    }
    r.angular_velocity[i] = spin;
  }
  r.delta_rotation[i] = dtheta;
  r.rotation_angle[i] += dtheta;
}

// Velocity Verlet after the forces: the second half kick of row i; with a
// symplectic rotation, the whole step's turn (Kratos' "correct" stage).
[[gnu::always_inline]] inline void KickRow(const IntegrationRows& r, const IntegrationConstants& k,
                                           std::size_t i) {
  if (!r.Integrated(i)) return;
  const double dt = k.dt;
  const std::uint8_t fixed = r.fixed[i];
  const double inv_mass = k.virtual_mass / r.mass[i];
  Array3 velocity = r.velocity[i];
  if (fixed == 0) {
    velocity += (0.5 * dt * inv_mass) * r.force[i];
  } else {
    for (int c = 0; c < 3; ++c)
      if (!FixedDof(fixed, c)) velocity[c] += 0.5 * dt * r.force[i][c] * inv_mass;
  }
  r.velocity[i] = velocity;
  if (!k.rotation) return;
  const double inv_inertia = k.virtual_mass / r.inertia[i];
  Array3 spin = r.angular_velocity[i];
  if (k.rotational_scheme == RotationalScheme::kDirect) {
    for (int c = 0; c < 3; ++c)
      if (!FixedDof(fixed, 3 + c)) spin[c] += 0.5 * dt * r.torque[i][c] * inv_inertia;
    r.angular_velocity[i] = spin;
    return;
  }
  Array3 dtheta;
  for (int c = 0; c < 3; ++c) {
    if (!FixedDof(fixed, 3 + c)) spin[c] += dt * r.torque[i][c] * inv_inertia;
    dtheta[c] = spin[c] * dt;
  }
  r.angular_velocity[i] = spin;
  r.delta_rotation[i] = dtheta;
  r.rotation_angle[i] += dtheta;
}

}  // namespace tessera::dem
