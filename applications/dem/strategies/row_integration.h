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
  kVelocityVerlet,
  // Five-value Gear predictor–corrector (strategies/gear_scheme.h): predicted
  // before the forces, corrected after them, as Velocity Verlet is kicked.
  kGear
};
// Kratos' names: Forward_Euler, Symplectic_Euler, Taylor_Scheme, Velocity_Verlet;
// Gear_Predictor_Corrector is a name of ours (Kratos' Gear file is not in its
// build).
TranslationalScheme TranslationalSchemeFromName(const std::string& name);
const char* TranslationalSchemeName(TranslationalScheme scheme);
// Whether the scheme moves the rows before the forces and finishes the step
// after them (Velocity Verlet's kick and drift, Gear's prediction), rather
// than making the whole step after them.
inline bool MovesBeforeForces(TranslationalScheme scheme) {
  return scheme == TranslationalScheme::kVelocityVerlet || scheme == TranslationalScheme::kGear;
}

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
  // Whether the rows' DISPLACEMENT advances with each move: only where the
  // coordinates jump by whole periods (a periodic domain). Elsewhere it is
  // x - x0, set when the rows are written to the nodes
  // (WriteParticlesToNodes): nothing in a step reads it, and keeping it here
  // as well cost a read and a write of it per row and step.
  bool advance_displacement;
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

// The updates below work on three scalars per vector, read before anything
// is stored and stored component by component: built as an Array3 value, a
// result was assembled on the stack and copied with a vector load that
// stalled on store forwarding (a third of the kick-and-drift pass).
struct Components {
  double x, y, z;
};
inline Components LoadComponents(const Array3& a) { return {a[0], a[1], a[2]}; }
inline void StoreComponents(Array3& to, const Components& c) {
  to[0] = c.x, to[1] = c.y, to[2] = c.z;
}
inline void AddComponents(Array3& to, const Components& c) {
  to[0] += c.x, to[1] += c.y, to[2] += c.z;
}
inline Components Scaled(const Components& c, double s) { return {c.x * s, c.y * s, c.z * s}; }

// One component of the one-force schemes: the new velocity and the increment
// of the coordinate, from velocity v and acceleration a (imposed: v kept).
struct AdvancedComponent {
  double velocity, increment;
};
// The scheme is a template argument: the row loops are compiled once per
// scheme, without a switch per component and row.
template <TranslationalScheme kScheme>
[[gnu::always_inline]] inline AdvancedComponent Advance(double v, double a, double dt,
                                                        bool imposed) {
  if (imposed) return {v, v * dt};
  switch (kScheme) {
    case TranslationalScheme::kForwardEuler:
      return {v + a * dt, v * dt};
    case TranslationalScheme::kSymplecticEuler: {
      const double next = v + a * dt;
      return {next, next * dt};
    }
    case TranslationalScheme::kTaylor:
      return {v + a * dt, v * dt + 0.5 * a * dt * dt};
    case TranslationalScheme::kVelocityVerlet:
    case TranslationalScheme::kGear:
      break;  // not used here (their stages are their own)
  }
  return {v, 0.0};
}

// v + h f inv per component, where not imposed (bits first_bit.. of `fixed`),
// in the operation order of the scalar update v += h * f * inv.
[[gnu::always_inline]] inline Components Kicked(const Components& v, double h, const Components& f,
                                                double inv, std::uint8_t fixed, int first_bit) {
  return {FixedDof(fixed, first_bit) ? v.x : v.x + h * f.x * inv,
          FixedDof(fixed, first_bit + 1) ? v.y : v.y + h * f.y * inv,
          FixedDof(fixed, first_bit + 2) ? v.z : v.z + h * f.z * inv};
}

// The translational half kick: v + (h/m) F with the factor h/m formed once,
// or, where a dof is imposed, v + h F / m per free component (the two orders
// the code before them used; their roundings differ).
[[gnu::always_inline]] inline Components HalfKicked(const Components& v, double h,
                                                    const Components& f, double inv_mass,
                                                    std::uint8_t fixed) {
  if (fixed != 0) return Kicked(v, h, f, inv_mass, fixed, 0);
  const double s = h * inv_mass;
  return {v.x + s * f.x, v.y + s * f.y, v.z + s * f.z};
}

// The whole step of Forward Euler, Symplectic Euler or Taylor (kScheme, which
// is k.scheme) on row i.
template <TranslationalScheme kScheme>
[[gnu::always_inline]] inline void IntegrateRow(const IntegrationRows& r,
                                                const IntegrationConstants& k, std::size_t i) {
  if (!r.Integrated(i)) return;
  const double dt = k.dt;
  const std::uint8_t fixed = r.fixed[i];
  const double inv_mass = k.virtual_mass / r.mass[i];
  const Components v = LoadComponents(r.velocity[i]), f = LoadComponents(r.force[i]);
  const AdvancedComponent x0 = Advance<kScheme>(v.x, f.x * inv_mass, dt, FixedDof(fixed, 0));
  const AdvancedComponent x1 = Advance<kScheme>(v.y, f.y * inv_mass, dt, FixedDof(fixed, 1));
  const AdvancedComponent x2 = Advance<kScheme>(v.z, f.z * inv_mass, dt, FixedDof(fixed, 2));
  const Components dx{x0.increment, x1.increment, x2.increment};
  StoreComponents(r.velocity[i], {x0.velocity, x1.velocity, x2.velocity});
  AddComponents(r.position[i], dx);
  if (k.advance_displacement) AddComponents(r.displacement[i], dx);
  StoreComponents(r.delta_displacement[i], dx);
  Components dtheta{0.0, 0.0, 0.0};
  if (k.rotation) {
    const double inv_inertia = k.virtual_mass / r.inertia[i];
    const Components w = LoadComponents(r.angular_velocity[i]), t = LoadComponents(r.torque[i]);
    if (k.rotational_scheme == RotationalScheme::kSymplectic) {
      // ω += α Δt with α = T/I, then Δθ = ω Δt.
      const Components next{FixedDof(fixed, 3) ? w.x : w.x + t.x * inv_inertia * dt,
                            FixedDof(fixed, 4) ? w.y : w.y + t.y * inv_inertia * dt,
                            FixedDof(fixed, 5) ? w.z : w.z + t.z * inv_inertia * dt};
      StoreComponents(r.angular_velocity[i], next);
      dtheta = Scaled(next, dt);
    } else {
      const AdvancedComponent a0 = Advance<kScheme>(w.x, t.x * inv_inertia, dt, FixedDof(fixed, 3));
      const AdvancedComponent a1 = Advance<kScheme>(w.y, t.y * inv_inertia, dt, FixedDof(fixed, 4));
      const AdvancedComponent a2 = Advance<kScheme>(w.z, t.z * inv_inertia, dt, FixedDof(fixed, 5));
      StoreComponents(r.angular_velocity[i], {a0.velocity, a1.velocity, a2.velocity});
      dtheta = {a0.increment, a1.increment, a2.increment};
    }
  }
  StoreComponents(r.delta_rotation[i], dtheta);
  AddComponents(r.rotation_angle[i], dtheta);
}

// Velocity Verlet before the forces: half kick and drift of row i (and, with
// Direct_Integration, of its rotation).
[[gnu::always_inline]] inline void KickAndDriftRow(const IntegrationRows& r,
                                                   const IntegrationConstants& k, std::size_t i) {
  if (!r.Integrated(i)) return;
  const double dt = k.dt;
  const std::uint8_t fixed = r.fixed[i];
  const double inv_mass = k.virtual_mass / r.mass[i];
  const Components velocity = HalfKicked(LoadComponents(r.velocity[i]), 0.5 * dt,
                                         LoadComponents(r.force[i]), inv_mass, fixed);
  const Components dx = Scaled(velocity, dt);
  StoreComponents(r.velocity[i], velocity);
  AddComponents(r.position[i], dx);
  if (k.advance_displacement) AddComponents(r.displacement[i], dx);
  StoreComponents(r.delta_displacement[i], dx);
  // (The symplectic sphere rotation turns after the forces, in KickRow.)
  if (k.rotational_scheme != RotationalScheme::kDirect) return;
  Components dtheta{0.0, 0.0, 0.0};
  if (k.rotation) {
    const double inv_inertia = k.virtual_mass / r.inertia[i];
    const Components spin = Kicked(LoadComponents(r.angular_velocity[i]), 0.5 * dt,
                                   LoadComponents(r.torque[i]), inv_inertia, fixed, 3);
    dtheta = Scaled(spin, dt);
    StoreComponents(r.angular_velocity[i], spin);
  }
  StoreComponents(r.delta_rotation[i], dtheta);
  AddComponents(r.rotation_angle[i], dtheta);
}

// Velocity Verlet after the forces: the second half kick of row i; with a
// symplectic rotation, the whole step's turn (Kratos' "correct" stage).
[[gnu::always_inline]] inline void KickRow(const IntegrationRows& r, const IntegrationConstants& k,
                                           std::size_t i) {
  if (!r.Integrated(i)) return;
  const double dt = k.dt;
  const std::uint8_t fixed = r.fixed[i];
  const double inv_mass = k.virtual_mass / r.mass[i];
  StoreComponents(r.velocity[i], HalfKicked(LoadComponents(r.velocity[i]), 0.5 * dt,
                                            LoadComponents(r.force[i]), inv_mass, fixed));
  if (!k.rotation) return;
  const double inv_inertia = k.virtual_mass / r.inertia[i];
  const Components w = LoadComponents(r.angular_velocity[i]), t = LoadComponents(r.torque[i]);
  if (k.rotational_scheme == RotationalScheme::kDirect) {
    StoreComponents(r.angular_velocity[i], Kicked(w, 0.5 * dt, t, inv_inertia, fixed, 3));
    return;
  }
  const Components spin = Kicked(w, dt, t, inv_inertia, fixed, 3);
  const Components dtheta = Scaled(spin, dt);
  StoreComponents(r.angular_velocity[i], spin);
  StoreComponents(r.delta_rotation[i], dtheta);
  AddComponents(r.rotation_angle[i], dtheta);
}

}  // namespace tessera::dem
