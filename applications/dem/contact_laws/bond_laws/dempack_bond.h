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
//   Shear: the incremental spring F_t (5.16) with the strength ℱ_t = τ^f A +
//   μ_s max(F_n, 0) (5.21 with the compressive force; τ^f: CONTACT_TAU_ZERO,
//   μ_s: CONTACT_INTERNAL_FRICC) and linear damage up to u_t^f = (1 +
//   SHEAR_ENERGY_COEF) u_t^l, driven as Kratos' DEM_Dempack drives it: by the
//   tangential path walked since the strength was passed (ShearScale), the
//   force (1 - D) ℱ_t; on a monotonic path the closed form in u_t = |F_t^e| /
//   k_t (F_t^e the undamaged spring).
//   A broken bond is a frictional contact with the same stiffness
//   (continuum_bonds.h). Failure Criterion State (5.44): max(F_s / ℱ_t,
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

  // The compressive loading envelope F_env(δ) (δ >= 0).
  static double Envelope(const BondParameters& law, const BondConstants& c, double shortening) {
    const double k0 = c.normal_stiffness;
    double force = 0.0, at = 0.0, slope = k0;  // the branch from (at, force) with `slope`
    for (int i = 0; i < 3; ++i) {
      const double limit = law.slope_limit[i] * c.area;
      if (!(limit > force)) {  // the branch starts at once
        slope = k0 / law.slope_fraction[i];
        continue;
      }
      const double reach = at + (limit - force) / slope;
      if (shortening <= reach) return force + slope * (shortening - at);
      at = reach, force = limit, slope = k0 / law.slope_fraction[i];
    }
    return force + slope * (shortening - at);
  }

  // The secant factor of the linear damage: (1 - D) min(1, u^l / u_max), with
  // D = max(D_old, (u_max - u^l) / (u^f - u^l)); sets `broken` at D >= 1.
  static double Damage(double u_max, double limit, double ultimate, double& damage, bool& broken) {
    if (u_max > limit) {
      const double reached = ultimate > limit ? (u_max - limit) / (ultimate - limit) : 1.0;
      damage = std::max(damage, std::min(reached, 1.0));
    }
    broken = damage >= 1.0;
    return (1.0 - damage) * (u_max > limit ? limit / u_max : 1.0);
  }

  static double Normal(const BondParameters& law, const BondConstants& c, double shortening,
                       double* s, std::uint8_t& failure, double& criterion) {
    const double k0 = c.normal_stiffness;
    criterion = 0.0;
    if (shortening > s[kShortening]) {  // loading the compression envelope
      s[kShortening] = shortening;
      return Envelope(law, c, shortening);
    }
    const double largest = s[kShortening];
    const double top = largest > 0.0 ? Envelope(law, c, largest) : 0.0;
    const double offset = largest - top / k0;  // δ_p
    if (shortening >= offset) return k0 * (shortening - offset);
    // Tension: opening u from the plastic offset.
    const double u = offset - shortening;
    const double strength = law.tension_strength * c.area;
    const double limit = strength / k0, ultimate = (1.0 + law.damage_factor) * limit;
    if (law.damage_factor == 0.0) {
      criterion = u / limit;
      if (u > limit && !law.unbreakable) {
        failure = static_cast<std::uint8_t>(BondState::kTensionFailure);
        return 0.0;
      }
      return -k0 * u;
    }
    s[kOpening] = std::max(s[kOpening], u);
    criterion = u / ultimate;
    if (law.unbreakable) return -k0 * u;
    bool broken = false;
    const double factor = Damage(s[kOpening], limit, ultimate, s[kTensionDamage], broken);
    if (broken) {
      failure = static_cast<std::uint8_t>(BondState::kTensionFailure);
      return 0.0;
    }
    return -factor * k0 * u;
  }

  static double HistoryScale(const double* s) { return 1.0 / s[kShearScale]; }

  // Shear damage as Kratos' DEM_Dempack drives it: once the trial force
  // first passes the strength ℱ_t (at u_t^l = ℱ_t / k_t), every step's
  // tangential slip |Δu_t| adds to the path walked (starting from the trial's
  // excess over u_t^l, so that a monotonic path gives exactly the closed form
  // D = (u_t - u_t^l) / (u_t^f - u_t^l)), D = path / (SHEAR_ENERGY_COEF u_t^l),
  // irreversible, and the force is (1 - D) ℱ_t whatever the direction of the
  // slip: vibrations damage a bond past its strength, and it does not unload.
  static double ShearScale(const BondParameters& law, const BondConstants& c, double normal,
                           double trial, double slip, double* s, std::uint8_t& failure,
                           double& criterion) {
    const double kt = c.tangential_stiffness;
    const double strength =
        law.shear_strength * c.area + law.internal_friction * std::max(normal, 0.0);
    const double limit = strength / kt;
    if (law.shear_energy_coef == 0.0 || law.unbreakable) {
      criterion = strength > 0.0 ? trial / strength : (trial > 0.0 ? 1.0 : 0.0);
      if (trial > strength && !law.unbreakable)
        failure = static_cast<std::uint8_t>(BondState::kShearFailure);  // acts this step still
      return 1.0;
    }
    if (s[kShearFlag] == 0.0) {
      if (!(trial > strength)) {
        criterion = strength > 0.0 ? trial / strength : 0.0;
        s[kShearScale] = 1.0;
        return 1.0;
      }
      s[kShearFlag] = 1.0;
      s[kSlip] = trial / kt - limit;
    } else {
      s[kSlip] += slip;
    }
    const double reached = limit > 0.0 ? s[kSlip] / (law.shear_energy_coef * limit) : 1.0;
    s[kShearDamage] = std::max(s[kShearDamage], std::min(reached, 1.0));
    if (s[kShearDamage] >= 1.0) {
      failure = static_cast<std::uint8_t>(BondState::kShearFailure);
      criterion = 1.0;
      return 0.0;
    }
    const double factor = trial > 0.0 ? (1.0 - s[kShearDamage]) * strength / trial : 1.0;
    criterion = 1.0 - s[kShearDamage];
    s[kShearScale] = factor;
    return factor;
  }
};

}  // namespace tessera::dem
