// Gear's five-value predictor–corrector for the spheres' rows
// (TranslationalIntegrationScheme "Gear_Predictor_Corrector"). Each row carries, besides x and v,
// the acceleration a, its rate b and c = b' (ParticleStorage::gear, gear_angular). Before the
// forces every component is predicted by its Taylor series,
//   x += v h + a h²/2 + b h³/6 + c h⁴/24,  v += a h + b h²/2 + c h³/6,
//   a += b h + c h²/2,                     b += c h;
// after them, with Δa = F/m - a (a predicted), corrected by
//   r_k += c_k Δa h²/2  for the scaled values r_k = x^(k) h^k / k!,
// c_0..c_4 = 19/120, 3/4, 1, 1/2, 1/12: the five-value Gear set for
// second-order equations (Gear 1971; Allen & Tildesley, Computer Simulation of
// Liquids, 1987, appendix E), written here for the unscaled derivatives so
// that a change of Δt between steps leaves them valid. A single correction,
// no iteration. Imposed (fixed) components move at their velocity and keep
// no derivatives.
//
// The forces see the predicted motion: delta_displacement after the
// prediction is the predicted increment, to which the correction adds
// c_0 Δa h²/2 (so that after the step it is the step's increment). The
// tangential springs therefore miss the correction, a term of the order of
// the scheme's local error.
//
// Rotation: with Direct_Integration the rotation angle and ω take the same
// scheme (gear_angular); with Quaternion_Integration / Runge_Kutta the sphere
// turns after the forces as under Velocity Verlet (ω += T h/I, Δθ = ω h).
#pragma once

#include <cstddef>

#include "applications/dem/strategies/row_integration.h"

namespace tessera::dem {

// Corrector coefficients of the scaled values r_0, r_1, r_3, r_4 (that of the
// acceleration, c_2, is 1: the corrected acceleration is F/m).
inline constexpr double kGearC0 = 19.0 / 120.0;
inline constexpr double kGearC1 = 3.0 / 4.0;
inline constexpr double kGearC3 = 1.0 / 2.0;
inline constexpr double kGearC4 = 1.0 / 12.0;

// The columns of the higher derivatives: a, b, c of the centre and, with a
// direct rotation, of the rotation angle (null otherwise).
struct GearRows {
  Array3 *acceleration, *jerk, *snap;
  Array3 *angular_acceleration, *angular_jerk, *angular_snap;

  explicit GearRows(ParticleStorage& p)
      : acceleration(p.gear[0].data()),
        jerk(p.gear[1].data()),
        snap(p.gear[2].data()),
        angular_acceleration(p.has_gear_angular ? p.gear_angular[0].data() : nullptr),
        angular_jerk(p.has_gear_angular ? p.gear_angular[1].data() : nullptr),
        angular_snap(p.has_gear_angular ? p.gear_angular[2].data() : nullptr) {}
};

// One component predicted in place; returns the increment of x.
[[gnu::always_inline]] inline double GearPredict(double& v, double& a, double& b, double c,
                                                 double h, bool imposed) {
  if (imposed) return v * h;
  const double dx = h * (v + h * (0.5 * a + h * (b / 6.0 + h * c / 24.0)));
  v += h * (a + h * (0.5 * b + h * c / 6.0));
  a += h * (b + 0.5 * h * c);
  b += h * c;
  return dx;
}

// One component corrected in place with its new acceleration `next`; returns
// the correction of x.
[[gnu::always_inline]] inline double GearCorrect(double& v, double& a, double& b, double& c,
                                                 double next, double h, bool imposed) {
  if (imposed) return 0.0;
  const double da = next - a;
  v += kGearC1 * 0.5 * h * da;
  a = next;
  b += kGearC3 * 3.0 * da / h;         // c_3 Δa h²/2 · 3!/h³
  c += kGearC4 * 12.0 * da / (h * h);  // c_4 Δa h²/2 · 4!/h⁴
  return kGearC0 * 0.5 * h * h * da;
}

// The prediction of one vector quantity (the centre, or the rotation angle)
// through its derivatives v, a, b, c, in place; components imposed by bits
// first_bit.. of `fixed` move at v and keep no higher derivatives. Returns the
// quantity's increment.
[[gnu::always_inline]] inline Components GearPredictVector(Array3& v, Array3& a, Array3& b,
                                                           Array3& c, double h, std::uint8_t fixed,
                                                           int first_bit) {
  Components dx{};
  double* out[3] = {&dx.x, &dx.y, &dx.z};
  for (int d = 0; d < 3; ++d) {
    const bool imposed = FixedDof(fixed, first_bit + d);
    if (imposed) a[d] = b[d] = c[d] = 0.0;
    *out[d] = GearPredict(v[d], a[d], b[d], c[d], h, imposed);
  }
  return dx;
}

// The correction of the same with the new accelerations `next`; returns the
// correction of the quantity.
[[gnu::always_inline]] inline Components GearCorrectVector(Array3& v, Array3& a, Array3& b,
                                                           Array3& c, const Components& next,
                                                           double h, std::uint8_t fixed,
                                                           int first_bit) {
  const double n[3] = {next.x, next.y, next.z};
  double dx[3];
  for (int d = 0; d < 3; ++d)
    dx[d] = GearCorrect(v[d], a[d], b[d], c[d], n[d], h, FixedDof(fixed, first_bit + d));
  return {dx[0], dx[1], dx[2]};
}

// Before the forces: the prediction of row i.
[[gnu::always_inline]] inline void GearPredictRow(const IntegrationRows& r, const GearRows& g,
                                                  const IntegrationConstants& k, std::size_t i) {
  if (!r.Integrated(i)) return;
  const double h = k.dt;
  const std::uint8_t fixed = r.fixed[i];
  const Components dx =
      GearPredictVector(r.velocity[i], g.acceleration[i], g.jerk[i], g.snap[i], h, fixed, 0);
  AddComponents(r.position[i], dx);
  if (k.advance_displacement) AddComponents(r.displacement[i], dx);
  StoreComponents(r.delta_displacement[i], dx);
  // (A symplectic rotation turns after the forces, in GearCorrectRow.)
  if (k.rotational_scheme != RotationalScheme::kDirect) return;
  Components dtheta{0.0, 0.0, 0.0};
  if (k.rotation)
    dtheta = GearPredictVector(r.angular_velocity[i], g.angular_acceleration[i], g.angular_jerk[i],
                               g.angular_snap[i], h, fixed, 3);
  StoreComponents(r.delta_rotation[i], dtheta);
  AddComponents(r.rotation_angle[i], dtheta);
}

// After the forces: the correction of row i (and the turn of a symplectic rotation).
[[gnu::always_inline]] inline void GearCorrectRow(const IntegrationRows& r, const GearRows& g,
                                                  const IntegrationConstants& k, std::size_t i) {
  if (!r.Integrated(i)) return;
  const double h = k.dt;
  const std::uint8_t fixed = r.fixed[i];
  const double inv_mass = k.virtual_mass / r.mass[i];
  const Components dx =
      GearCorrectVector(r.velocity[i], g.acceleration[i], g.jerk[i], g.snap[i],
                        Scaled(LoadComponents(r.force[i]), inv_mass), h, fixed, 0);
  AddComponents(r.position[i], dx);
  if (k.advance_displacement) AddComponents(r.displacement[i], dx);
  AddComponents(r.delta_displacement[i], dx);
  if (!k.rotation) return;
  const double inv_inertia = k.virtual_mass / r.inertia[i];
  const Components t = LoadComponents(r.torque[i]);
  if (k.rotational_scheme == RotationalScheme::kDirect) {
    const Components dtheta =
        GearCorrectVector(r.angular_velocity[i], g.angular_acceleration[i], g.angular_jerk[i],
                          g.angular_snap[i], Scaled(t, inv_inertia), h, fixed, 3);
    AddComponents(r.delta_rotation[i], dtheta);
    AddComponents(r.rotation_angle[i], dtheta);
    return;
  }
  const Components spin =
      Kicked(LoadComponents(r.angular_velocity[i]), h, t, inv_inertia, fixed, 3);
  const Components dtheta = Scaled(spin, h);
  StoreComponents(r.angular_velocity[i], spin);
  StoreComponents(r.delta_rotation[i], dtheta);
  AddComponents(r.rotation_angle[i], dtheta);
}

// The starting derivatives of row i: a = F/m (and T/I) of the forces just
// computed, b = c = 0 (the forces' history is not known).
inline void GearStartRow(const IntegrationRows& r, const GearRows& g, const IntegrationConstants& k,
                         std::size_t i) {
  const Components a = Scaled(LoadComponents(r.force[i]), k.virtual_mass / r.mass[i]);
  StoreComponents(g.acceleration[i], a);
  g.jerk[i] = g.snap[i] = Array3{};
  if (!g.angular_acceleration) return;
  StoreComponents(g.angular_acceleration[i],
                  Scaled(LoadComponents(r.torque[i]), k.virtual_mass / r.inertia[i]));
  g.angular_jerk[i] = g.angular_snap[i] = Array3{};
}

}  // namespace tessera::dem
