// DEM_Dempack as a bond-law unit (bond_laws.h): the DEMpack cohesive law of
// the thesis (§5.2, eqs. 5.11-5.28; Oñate et al. 2015), under Kratos' name and
// with the parameters Kratos' materials files give it.
//
// Section A (before area correction) π min(R_i, R_j)² (5.4), springs
// k_n = E A / L, k_t = G A / L (5.15, 5.34) times the calibration factors of
// (5.37) (bond_law.h). Normal displacement: the shortening δ = L - d
// (compression positive); forces compression positive.
//   Compression: elasto-plastic, multi-branch (5.27-5.28). The loading
//   envelope F_env(δ) rises with k_n0 up to LCS_1 A, then with k_n0 / YRC_1 up
//   to LCS_2 A, with k_n0 / YRC_2 up to LCS_3 A and with k_n0 / YRC_3 beyond
//   (LCS_i: SLOPE_LIMIT_COEFF_C1..3 in Pa, YRC_i = E_0 / E_i:
//   SLOPE_FRACTION_N1..3). Unloading and reloading follow the initial slope
//   from the largest shortening reached, δ_max: F = F_env(δ_max) - k_n0
//   (δ_max - δ); the plastic offset δ_p = δ_max - F_env(δ_max) / k_n0 is where
//   that line meets zero force.
//   Tension (δ < δ_p, opening u = δ_p - δ): elastic k_n0 u up to the strength
//   ℱ_nt = σ_t A (CONTACT_SIGMA_MIN), u^l = ℱ_nt / k_n0; then linear damage
//   D = (u_max - u^l) / (u^f - u^l) (5.23-5.26) up to u^f = (1 + DAMAGE_FACTOR)
//   u^l, irreversible (u_max the largest opening reached), which lowers the
//   strength to (1 - D) ℱ_nt (the damaged strength ℱ^d: linear softening, as
//   Kratos' DEM_Dempack draws it); unloading and reloading are secant, F =
//   (1 - D) ℱ_nt u / u_max. At u_max >= u^f the bond breaks in tension.
//   DAMAGE_FACTOR 0: no softening, the bond breaks where F passes ℱ_nt.
//   BondDamage "thesis" (bond_law.h): F = (1 - D) k_n0 u instead, the
//   thesis' (5.23) as printed (secant too); in shear (1 - D) k_t u_t.
//   Shear: the incremental spring F_t (5.16) with the strength ℱ_t = τ^f A +
//   μ_s max(F_n, 0) (5.21 with the compressive force; τ^f: CONTACT_TAU_ZERO,
//   μ_s: CONTACT_INTERNAL_FRICC) and linear damage up to u_t^f = (1 +
//   SHEAR_ENERGY_COEF) u_t^l, driven as Kratos' DEM_Dempack drives it: by the
//   tangential path walked since the strength was passed (ShearScale), the
//   force (1 - D) ℱ_t; on a monotonic path the closed form in u_t = |F_t^e| /
//   k_t (F_t^e the undamaged spring).
//   A broken bond is a frictional contact with the same stiffness
//   (continuum_bonds.h) pushing from the plastic offset it broke with
//   (BrokenNormal), or keeps its shear force as Kratos leaves it
//   (BrokenBonds "kratos", bond_law.h). Failure Criterion State (5.44): max(F_s / ℱ_t,
//   F_nt / ℱ_nt), or with damage max(F_s / ℱ_t, u_n / u_n^f); 1 once broken.
// Kratos' YOUNG_MODULUS_PLASTIC and PLASTIC_YIELD_STRESS are read and checked
// (>= 0) but take no part: the thesis' compression model is the branches above.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "applications/dem/contact_laws/bond_law.h"
#include "applications/dem/contact_laws/laws/viscous_coulomb.h"  // ScalarMath

namespace tessera {
class Properties;
}

namespace tessera::dem {

struct DempackBond {
  static constexpr const char* kName = "DEM_Dempack";
  // Per bond: the largest opening u_max and the tension damage D_n, the
  // largest shortening δ_max, the tangential path walked since the shear
  // strength was first passed, the shear damage D_t, the factor of the stored
  // shear force over the undamaged spring's, and 1 once the strength was passed.
  enum Slot { kOpening, kTensionDamage, kShortening, kSlip, kShearDamage, kShearScale, kShearFlag };
  static constexpr std::size_t kStateSize = 7;
  // Kratos' DEM_Dempack has no shear dashpot; its normal one has the damping
  // ratio 1 - e (bond_laws.cpp, Read).
  static constexpr bool kShearDashpot = false;
  // Kratos' DEM_Dempack takes π min(R)² unweighted (BondAreaCorrection "kratos").
  static constexpr bool kKratosAreaWeighting = false;
  // Normal, HistoryScale and ShearScale are templates over the number type
  // (NormalOf, HistoryScaleOf, ShearScaleOf): the bond pass runs them on lanes.
  static constexpr bool kLaneTemplates = true;

  static void Read(const std::vector<const Properties*>& sources, BondParameters& bond,
                   const std::string& where);
  static void InitializeState(double* s) {
    std::fill(s, s + kStateSize, 0.0);
    s[kShearScale] = 1.0;
  }

  static double BaseArea(double ri, double rj) {
    const double r = std::min(ri, rj);
    return std::numbers::pi * r * r;
  }

  // The arithmetic is written once, as templates over the number type T with
  // its Math M (contact_laws/laws/viscous_coulomb.h): double and ScalarMath
  // for one bond (Normal, HistoryScale, ShearScale below), four AVX2 lanes of
  // four bonds in the bond pass (particles/bond_forces.cpp). Every branch of
  // one bond is a Select of values computed in all lanes (the rare work, the
  // tension and shear damage, behind M::Any), so that one bond and one lane
  // take the same operations in the same order: bitwise the same results.
  // `s` is the bond's state (kStateSize values of T), read and written in
  // place as s[slot]: a pointer, or the bond pass' lanes, which load a slot
  // where it is first read (the damage slots stay in memory while elastic).

  // The compressive loading envelope F_env(δ) (δ >= 0) at `shortening`, k0 =
  // k_n0: the branch from (at, force) with `slope` that holds δ.
  template <class T, class M>
  [[gnu::always_inline]] static T EnvelopeOf(const BondParameters& law, const T& k0, const T& area,
                                             const T& shortening) {
    using Mask = typename M::Mask;
    const T zero{};
    T force = zero, at = zero, slope = k0, result = zero;
    Mask done = zero != zero;
    for (int i = 0; i < 3; ++i) {
      const T limit = law.slope_limit[i] * area;
      // The branch starts at once where !(limit > force); k0 / 1 is k0 exactly.
      const Mask starts = Not<Mask>(limit > force);
      const T next_slope = law.slope_fraction[i] == 1.0 ? k0 : k0 / law.slope_fraction[i];
      // (Where the branch starts at once in every open lane, reach is not needed.)
      const Mask open = Not<Mask>(done) & Not<Mask>(starts);
      if (M::Any(open)) {
        const T reach = at + (limit - force) / slope;
        const Mask hit = open & (shortening <= reach);
        result = M::Select(hit, force + slope * (shortening - at), result);
        done = done | hit;
        const Mask advance = open & Not<Mask>(hit);
        at = M::Select(advance, reach, at);
        force = M::Select(advance, limit, force);
      }
      slope = M::Select(done, slope, next_slope);
    }
    return M::Select(done, result, force + slope * (shortening - at));
  }

  // The secant factor of the linear damage: (1 - D) min(1, u^l / u_max)
  // (Kratos'; `thesis`: 1 - D), with D = max(D_old, (u_max - u^l) / (u^f -
  // u^l)) (`damage`, updated); `broken` where D >= 1.
  template <class T, class M>
  [[gnu::always_inline]] static T DamageOf(const T& u_max, const T& limit, const T& ultimate,
                                           bool thesis, T& damage, typename M::Mask& broken) {
    using Mask = typename M::Mask;
    const T one = T{} + 1.0;
    const Mask past = u_max > limit;
    if (!M::Any(past)) {  // no lane past u^l: no new damage (the same as below)
      broken = damage >= one;
      return (one - damage) * one;
    }
    const T reached = M::Select(ultimate > limit, (u_max - limit) / (ultimate - limit), one);
    damage = M::Select(past, Max<T, M>(damage, Min<T, M>(reached, one)), damage);
    broken = damage >= one;
    if (thesis) return (one - damage) * one;
    return (one - damage) * M::Select(past, limit / u_max, one);
  }

  // The normal force of an intact bond (compression positive) at
  // `shortening`; `failed` where it breaks in tension (force 0), `criterion`
  // its part of the Failure Criterion State.
  template <class T, class M, class State>
  [[gnu::always_inline]] static T NormalOf(const BondParameters& law, const T& k0, const T& area,
                                           const T& shortening, State&& s, typename M::Mask& failed,
                                           T& criterion) {
    using Mask = typename M::Mask;
    const T zero{};
    criterion = zero;
    failed = zero != zero;
    const T largest = s[kShortening];
    // Loading the compression envelope: F_env(δ), δ_max = δ.
    const Mask loading = shortening > largest;
    s[kShortening] = M::Select(loading, shortening, largest);
    const T envelope = EnvelopeOf<T, M>(law, k0, area, M::Select(loading, shortening, largest));
    if (!M::Any(Not<Mask>(loading))) return envelope;
    // Unloading or reloading with k0 from the plastic offset δ_p.
    const T top = M::Select(largest > zero, envelope, zero);
    const T offset = largest - top / k0;
    const Mask tension = Not<Mask>(loading) & Not<Mask>(shortening >= offset);
    T force = M::Select(loading, envelope, k0 * (shortening - offset));
    if (!M::Any(tension)) return force;
    // Tension: opening u from the plastic offset.
    const T u = offset - shortening;
    const T strength = law.tension_strength * area;
    const T limit = strength / k0, ultimate = (1.0 + law.damage_factor) * limit;
    T pull;
    Mask broken;
    if (law.damage_factor == 0.0) {
      criterion = M::Select(tension, u / limit, zero);
      broken = (u > limit) & (law.unbreakable ? zero != zero : zero == zero);
      pull = -k0 * u;
    } else {
      s[kOpening] = M::Select(tension, Max<T, M>(s[kOpening], u), s[kOpening]);
      criterion = M::Select(tension, u / ultimate, zero);
      if (law.unbreakable) {
        broken = zero != zero;
        pull = -k0 * u;
      } else {
        T damage = s[kTensionDamage];
        const T factor = DamageOf<T, M>(s[kOpening], limit, ultimate,
                                        law.damage == BondDamage::kThesis, damage, broken);
        s[kTensionDamage] = M::Select(tension, damage, s[kTensionDamage]);
        pull = -factor * k0 * u;
      }
    }
    failed = tension & broken;
    return M::Select(tension, M::Select(broken, zero, pull), force);
  }

  // The stored shear force over the undamaged spring's: 1 / the last factor.
  template <class State>
  [[gnu::always_inline]] static auto HistoryScaleOf(State&& s) {
    return 1.0 / s[kShearScale];
  }

  // Shear damage as Kratos' DEM_Dempack drives it: once the trial force
  // first passes the strength ℱ_t (at u_t^l = ℱ_t / k_t), every step's
  // tangential slip |Δu_t| adds to the path walked (starting from the trial's
  // excess over u_t^l, so that a monotonic path gives exactly the closed form
  // D = (u_t - u_t^l) / (u_t^f - u_t^l)), D = path / (SHEAR_ENERGY_COEF u_t^l),
  // irreversible, and the force is (1 - D) ℱ_t whatever the direction of the
  // slip: vibrations damage a bond past its strength, and it does not unload.
  // BondDamage "thesis": the force (1 - D) times the trial force instead.
  // The factor on the trial force `trial`; `failed` where the bond breaks in
  // shear, `criterion` its part of the Failure Criterion State.
  template <class T, class M, class State>
  [[gnu::always_inline]] static T ShearScaleOf(const BondParameters& law, const T& kt,
                                               const T& area, const T& normal, const T& trial,
                                               const T& slip, State&& s, typename M::Mask& failed,
                                               T& criterion) {
    using Mask = typename M::Mask;
    const T zero{}, one = T{} + 1.0;
    const T strength = law.shear_strength * area + law.internal_friction * Max<T, M>(normal, zero);
    const Mask positive = strength > zero;
    if (law.shear_energy_coef == 0.0 || law.unbreakable) {
      criterion = M::Select(positive, trial / strength, M::Select(trial > zero, one, zero));
      failed = (trial > strength) & (law.unbreakable ? zero != zero : zero == zero);
      return one;  // a bond failing acts this step still
    }
    // Below the strength, never passed: no damage.
    const Mask fresh = s[kShearFlag] == zero;
    const Mask below = fresh & Not<Mask>(trial > strength);
    criterion = M::Select(positive, trial / strength, zero);
    failed = zero != zero;
    s[kShearScale] = M::Select(below, one, s[kShearScale]);
    if (!M::Any(Not<Mask>(below))) return one;
    // Passed now (the path starts at the trial's excess) or before.
    const T limit = strength / kt;
    const Mask damaging = Not<Mask>(below);
    const Mask starting = fresh & damaging;
    s[kSlip] =
        M::Select(starting, trial / kt - limit, M::Select(damaging, s[kSlip] + slip, s[kSlip]));
    s[kShearFlag] = M::Select(starting, one, s[kShearFlag]);
    const T reached = M::Select(limit > zero, s[kSlip] / (law.shear_energy_coef * limit), one);
    s[kShearDamage] =
        M::Select(damaging, Max<T, M>(s[kShearDamage], Min<T, M>(reached, one)), s[kShearDamage]);
    const Mask broken = damaging & (s[kShearDamage] >= one);
    const T factor = law.damage == BondDamage::kThesis
                         ? (one - s[kShearDamage]) * one
                         : M::Select(trial > zero, (one - s[kShearDamage]) * strength / trial, one);
    failed = broken;
    criterion = M::Select(damaging, M::Select(broken, one, one - s[kShearDamage]), criterion);
    s[kShearScale] = M::Select(damaging & Not<Mask>(broken), factor, s[kShearScale]);
    return M::Select(below, one, M::Select(broken, zero, factor));
  }

  // One bond (EvaluateBond, BondLawPath).
  static double Envelope(const BondParameters& law, const BondConstants& c, double shortening) {
    return EnvelopeOf<double, ScalarMath>(law, c.normal_stiffness, c.area, shortening);
  }
  static double Normal(const BondParameters& law, const BondConstants& c, double shortening,
                       double* s, std::uint8_t& failure, double& criterion) {
    bool failed = false;
    const double normal = NormalOf<double, ScalarMath>(law, c.normal_stiffness, c.area, shortening,
                                                       s, failed, criterion);
    if (failed) failure = static_cast<std::uint8_t>(BondState::kTensionFailure);
    return normal;
  }
  // A broken bond's normal force until its crack opens (compression
  // positive): k_n0 from the plastic offset it broke with, δ_p = δ_max -
  // F_env(δ_max) / k_n0 (0 where it never left the first branch), no
  // tension. The force is thus continuous where a bond breaks on a plastic
  // branch, where it carried F_env(δ) < k_n0 δ: a broken bond pushing with
  // k_n0 δ at once handed its neighbours the difference, and under a 60 MPa
  // confinement most of the specimen's bonds broke in shear within 0.4 ms
  // (docs/validation.md, V5.3). The state is only read: a broken bond
  // crushes no further (k_n0 beyond δ_max too).
  static double BrokenNormal(const BondParameters& law, const BondConstants& c, double shortening,
                             const double* s) {
    const double largest = s[kShortening], k0 = c.normal_stiffness;
    const double top = largest > 0.0 ? Envelope(law, c, largest) : 0.0;
    const double offset = top == k0 * largest ? 0.0 : largest - top / k0;
    return shortening > offset ? k0 * (shortening - offset) : 0.0;
  }
  static double HistoryScale(const double* s) { return HistoryScaleOf(s); }
  static double ShearScale(const BondParameters& law, const BondConstants& c, double normal,
                           double trial, double slip, double* s, std::uint8_t& failure,
                           double& criterion) {
    bool failed = false;
    const double scale = ShearScaleOf<double, ScalarMath>(
        law, c.tangential_stiffness, c.area, normal, trial, slip, s, failed, criterion);
    if (failed) failure = static_cast<std::uint8_t>(BondState::kShearFailure);
    return scale;
  }

 private:
  // std::max and std::min of each lane (the same operand on ties and NaN).
  template <class T, class M>
  [[gnu::always_inline]] static T Max(const T& a, const T& b) {
    return M::Select(a < b, b, a);
  }
  template <class T, class M>
  [[gnu::always_inline]] static T Min(const T& a, const T& b) {
    return M::Select(b < a, b, a);
  }
  // The complement of a mask (bool or vector lanes).
  template <class Mask>
  [[gnu::always_inline]] static Mask Not(const Mask& m) {
    return m == Mask{};
  }
};

}  // namespace tessera::dem
