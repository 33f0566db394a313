// The force of a viscous Coulomb contact (thesis 2.31-2.39): spring-dashpot in
// the normal direction, a tangential spring turned with the contact plane and
// a dashpot, capped by a Coulomb slider. Written once, as a template over the
// number type T: double for the scalar path (ComputeContactForce), the 4- and
// 8-lane vectors of the batch kernel (pair_contact_lanes.inc) with one lane
// per contact. A law's stiffnesses and elastic normal force come from its own
// Elastic (laws/); this is the rest of what every law of the list shares, and
// a law that needs another force writes its own Force (law_defaults.h).
//
// Every branch of the scalar law is a Select here, and the rare work (the
// unloading ratio, the slider's cap) sits behind Any(mask): for double a
// Select is a ternary and Any the mask itself, so the lanes and the scalar
// path compute the same operations in the same order. Nothing may be fused
// (the batch kernel is compiled with -ffp-contract=off, the scalar path for
// an x86-64 without FMA): a contact gets bitwise the same results from every
// width and from the scalar path, by construction.
#pragma once

#include <cmath>
#include <cstddef>
#include <type_traits>

namespace tessera::dem {

// Math of the scalar path: T = double, Mask = bool.
struct ScalarMath {
  using Mask = bool;
  static double Sqrt(double x) { return std::sqrt(x); }
  static double Select(bool m, double a, double b) { return m ? a : b; }
  static bool Any(bool m) { return m; }
};

// One contact (one per lane) as a law's Force reads it: the geometry of the
// pair loop and the pair's parameters. The normal points from the first body
// to the second; the velocity and displacement are the second's relative to
// the first at the contact point (thesis 2.10, 2.31).
template <class T>
struct LawContact {
  T overlap, radius, mass;        // δ > 0, the stiffness radius ρ, m*
  T nx, ny, nz;                   // unit normal
  T vx, vy, vz;                   // relative velocity
  T sx, sy, sz;                   // relative displacement over the step
  T young, shear, damping_ratio;  // E*, G*, ξ
  // sqrt(4 G* / E*) (TangentialDampingFactor) where `damping_factor_given`,
  // for c_t = c_n sqrt(4 G*/E*); else c_t = 2 ξ sqrt(m k_t).
  T tangential_damping;
  bool damping_factor_given;
  T dt;
  // The pair's COEFFICIENT_OF_RESTITUTION, for a law whose normal force
  // itself dissipates (laws/linear_walton_braun.h: k_2 = k_1 / e²); no law
  // of the batch kernel reads it.
  T restitution;
  // Kratos' split of the Coulomb cap (ViscousCoulombForce): the spring keeps
  // its own elastic part when the dashpot fills part of the cap. Scalar path
  // only; the batch kernel's sphere pairs leave it false.
  bool elastic_slider = false;
};

// What a law's Force gives for one contact (one per lane), besides the
// history it updates in place.
template <class T, class Mask>
struct LawForce {
  T fx, fy, fz;  // on the first body (the second gets the opposite)
  T normal_force;
  T damping_power, friction_power;  // where asked for (kPowers), else 0
  Mask slip;                        // the slider slid: the next step's `sliding`
};

// The history layout of the viscous Coulomb laws: the spring's three
// components, k_t and F_ne of the last evaluation (PairHistory's order).
enum ViscousCoulombHistory : std::size_t {
  kSpringX = 0,
  kSpringY = 1,
  kSpringZ = 2,
  kTangentialStiffness = 3,
  kNormalElasticForce = 4,
  kViscousCoulombHistoryDoubles = 5
};

// The viscous Coulomb force of contact `c` with the law's stiffnesses k_n,
// k_t and elastic normal force F_ne at this overlap (a law's Elastic, or what
// its own Force makes of its history), the history `h` (its first
// kViscousCoulombHistoryDoubles doubles or lanes, updated in place) and
// `sliding` (the previous step's slip). `friction(sliding, tvx, tvy, tvz)`
// gives μ for the tangential sliding velocity (the pair's static or dynamic
// coefficient, or Kratos' FRICTION_DECAY blend). kPowers: compute the
// dissipated powers (energy bookkeeping), else leave them 0.
template <class T, class M, bool kPowers, class Friction>
[[gnu::always_inline]] inline LawForce<T, typename M::Mask> ViscousCoulombForce(
    const LawContact<T>& c, const T& kn, const T& kt, const T& fne, T* h,
    const typename M::Mask& sliding, Friction&& friction) {
  using Mask = typename M::Mask;
  const T zero{};
  // c_n = 2 ξ sqrt(m k_n) (2.19), 0 without damping.
  const T xi = c.damping_ratio;
  const Mask damped = xi > zero;
  const T cn = M::Select(damped, 2.0 * xi * M::Sqrt(c.mass * kn), zero);
  // k_t / k_n = 4 G* / E* for every 3D law of the list, so c_t = c_n sqrt(4
  // G* / E*): a caller that has the factor per material pair saves a square
  // root per contact. (Without damping c_n is 0 and the factor finite.)
  T ct = zero;
  if (c.damping_factor_given)
    ct = cn * c.tangential_damping;
  else if (M::Any(damped))
    ct = M::Select(damped, 2.0 * xi * M::Sqrt(c.mass * kt), zero);
  const T overlap_rate = -(c.vx * c.nx + c.vy * c.ny + c.vz * c.nz);
  T fn = fne + cn * overlap_rate;
  fn = M::Select(fn < zero, zero, fn);  // no attraction while separating

  // The spring of the previous step, turned into the new tangent plane with
  // its magnitude kept; unloading (F_ne drops), the contact area shrinks and
  // the stored force with it: times k_t^{n+1}/k_t^n (erratum of 2.36b).
  const T ox = h[kSpringX], oy = h[kSpringY], oz = h[kSpringZ];
  const T old_kt = h[kTangentialStiffness], old_fne = h[kNormalElasticForce];
  const T old_norm2 = ox * ox + oy * oy + oz * oz;
  // (Computed in every lane, a new contact's too, and selected: in the
  // kernel nearly every lane has a spring, and a test of the lanes cost more
  // than it saved.)
  const T old_along = ox * c.nx + oy * c.ny + oz * c.nz;
  const T px = ox - c.nx * old_along, py = oy - c.ny * old_along, pz = oz - c.nz * old_along;
  const T new_norm2 = px * px + py * py + pz * pz;
  const Mask turnable = new_norm2 > zero;
  const T keep = M::Sqrt(old_norm2 / new_norm2);
  T qx = M::Select(turnable, px * keep, zero), qy = M::Select(turnable, py * keep, zero),
    qz = M::Select(turnable, pz * keep, zero);
  // Where k_t has not changed (the linear law between equal spheres) the
  // ratio is exactly 1: those contacts need no division.
  const Mask unloading = (fne < old_fne) & (old_kt > zero) & (kt != old_kt);
  if (M::Any(unloading)) {
    const T shrink = kt / old_kt;
    qx = M::Select(unloading, qx * shrink, qx);
    qy = M::Select(unloading, qy * shrink, qy);
    qz = M::Select(unloading, qz * shrink, qz);
  }
  const Mask rotate = old_norm2 > zero;
  T fx = M::Select(rotate, qx, ox), fy = M::Select(rotate, qy, oy), fz = M::Select(rotate, qz, oz);
  // Loading: F_te += k_t Δs_t (2.32).
  const T step_along = c.sx * c.nx + c.sy * c.ny + c.sz * c.nz;
  fx = fx + (c.sx - c.nx * step_along) * kt;
  fy = fy + (c.sy - c.ny * step_along) * kt;
  fz = fz + (c.sz - c.nz * step_along) * kt;
  const T velocity_along = c.vx * c.nx + c.vy * c.ny + c.vz * c.nz;
  const T tvx = c.vx - c.nx * velocity_along, tvy = c.vy - c.ny * velocity_along,
          tvz = c.vz - c.nz * velocity_along;
  T tx = fx + tvx * ct, ty = fy + tvy * ct, tz = fz + tvz * ct;

  // The slider (2.37): the trial force capped at μ F_n, compared squared (no
  // root unless it slips).
  const T mu = friction(sliding, tvx, tvy, tvz);
  const T limit = mu * fn;
  const T trial2 = tx * tx + ty * ty + tz * tz;
  const Mask slip = trial2 > limit * limit;
  LawForce<T, Mask> out;
  out.damping_power = zero;
  out.friction_power = zero;
  // The relative velocity does work on the contact: F · v with F on the first
  // body; the dashpots' part is dissipated (the tangential one while sticking).
  if constexpr (kPowers) {
    out.damping_power = (fn - fne) * overlap_rate;
    out.damping_power = M::Select(slip, out.damping_power,
                                  out.damping_power + ct * (tvx * tvx + tvy * tvy + tvz * tvz));
  }
  if (M::Any(slip)) {
    // Slip: the force is capped and the spring keeps only what the slider passes.
    const T cap = limit / M::Sqrt(trial2);
    const T cx = tx * cap, cy = ty * cap, cz = tz * cap;
    if constexpr (kPowers) {
      // The slider dissipates the capped force times the slip, the part of
      // this step's tangential displacement the spring does not keep.
      const T slider_work = cx * (fx - cx) + cy * (fy - cy) + cz * (fz - cz);
      const Mask counts = slip & (kt > zero) & (c.dt > zero);
      out.friction_power = M::Select(counts, slider_work / (kt * c.dt), zero);
    }
    bool split = false;
    if constexpr (std::is_same_v<T, double>) {
      if (c.elastic_slider) {
        split = true;
        // Kratos' split of the cap (DEM_D_Hertz_viscous_Coulomb): the spring
        // F_e and the dashpot F_v share μ F_n. Spring and dashpot along
        // each other: the spring first (capped alone if it exceeds μ F_n),
        // the dashpot takes what is left; against each other: the dashpot,
        // where it is the larger, grows to μ F_n + |F_e| so the sum is the
        // cap, else the spring is capped and the dashpot dropped. The
        // spring keeps its own part, not the capped total.
        const double dx = tvx * ct, dy = tvy * ct, dz = tvz * ct;
        const double spring = std::sqrt(fx * fx + fy * fy + fz * fz);
        const double dashpot = std::sqrt(dx * dx + dy * dy + dz * dz);
        const bool along = fx * dx + fy * dy + fz * dz >= 0.0;
        const bool spring_only = along ? spring > limit : dashpot < spring;
        const double spring_scale = spring_only ? limit / spring : 1.0;
        const double dashpot_scale =
            spring_only ? 0.0 : (along ? limit - spring : limit + spring) / dashpot;
        const double ex = fx * spring_scale, ey = fy * spring_scale, ez = fz * spring_scale;
        const double kx = ex + dx * dashpot_scale, ky = ey + dy * dashpot_scale,
                     kz = ez + dz * dashpot_scale;
        if constexpr (kPowers) {
          // The slider dissipates the force it passes times the slip (the
          // spring's lost stretch, (F_e - F_e') / k_t, over the step).
          if (slip && kt > 0.0 && c.dt > 0.0)
            out.friction_power = (kx * (fx - ex) + ky * (fy - ey) + kz * (fz - ez)) / (kt * c.dt);
          // The dashpot's share of the cap dissipates as a dashpot does.
          if (slip) out.damping_power += dashpot_scale * ct * (tvx * tvx + tvy * tvy + tvz * tvz);
        }
        if (slip) tx = kx, ty = ky, tz = kz, fx = ex, fy = ey, fz = ez;
      }
    }
    if (!split) {
      tx = M::Select(slip, cx, tx);
      ty = M::Select(slip, cy, ty);
      tz = M::Select(slip, cz, tz);
      fx = M::Select(slip, cx, fx);
      fy = M::Select(slip, cy, fy);
      fz = M::Select(slip, cz, fz);
    }
  }
  h[kSpringX] = fx;
  h[kSpringY] = fy;
  h[kSpringZ] = fz;
  h[kTangentialStiffness] = kt;
  h[kNormalElasticForce] = fne;
  out.fx = tx - c.nx * fn;
  out.fy = ty - c.ny * fn;
  out.fz = tz - c.nz * fn;
  out.normal_force = fn;
  out.slip = slip;
  return out;
}

// The elastic part of the force on the first body of a viscous Coulomb
// contact, from its updated history: the spring minus F_ne n.
template <class T>
[[gnu::always_inline]] inline void ViscousCoulombElasticForce(const LawContact<T>& c, const T* h,
                                                              T& ex, T& ey, T& ez) {
  ex = h[kSpringX] - c.nx * h[kNormalElasticForce];
  ey = h[kSpringY] - c.ny * h[kNormalElasticForce];
  ez = h[kSpringZ] - c.nz * h[kNormalElasticForce];
}

}  // namespace tessera::dem
