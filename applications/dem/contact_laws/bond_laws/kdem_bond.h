// DEM_KDEM as a bond-law unit (bond_laws.h): Kratos' KDEM bar (thesis §5.2,
// eqs. 5.11-5.21; the parameters and the failure rule are described in
// ../bond_law.h). Linear-elastic in tension and compression; breaks, without
// softening, in tension at σ_t A (σ_t from the Mohr-Coulomb envelope of τ_0
// and μ_i) or in shear at (τ_0 + μ_i max(σ, 0)) A. No state of its own.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "applications/dem/contact_laws/bond_law.h"

namespace tessera {
class Properties;
}

namespace tessera::dem {

struct KdemBond {
  static constexpr const char* kName = "DEM_KDEM";
  static constexpr std::size_t kStateSize = 0;

  // The law's own parameters of a pair (the common ones are read already).
  static void Read(const std::vector<const Properties*>& sources, BondParameters& bond,
                   const std::string& where);
  static void InitializeState(double*) {}

  // Dashpots c = 2 ξ sqrt(m* k) on the normal and the shear motion.
  static constexpr bool kShearDashpot = true;
  // Kratos' DEM_KDEM reads the spheres' weighted initial areas
  // (BondAreaCorrection "kratos").
  static constexpr bool kKratosAreaWeighting = true;

  // The section before area correction: the circle of the mean radius.
  static double BaseArea(double ri, double rj) {
    const double mean_radius = 0.5 * (ri + rj);
    return std::numbers::pi * mean_radius * mean_radius;
  }

  // Normal force of an intact bond, compression positive, from its shortening
  // L - d; sets `failure` where it breaks in tension (force 0 then) and
  // `criterion` to F_nt / ℱ_nt.
  static double Normal(const BondParameters& law, const BondConstants& c, double shortening,
                       double* /*state*/, std::uint8_t& failure, double& criterion) {
    const double normal = c.normal_stiffness * shortening;
    const double strength = law.tension_strength * c.area;
    criterion = shortening < 0.0 && strength > 0.0 ? -normal / strength : 0.0;
    if (shortening < 0.0 && !law.unbreakable && -normal > strength) {
      failure = static_cast<std::uint8_t>(BondState::kTensionFailure);
      return 0.0;
    }
    return normal;
  }

  // A broken bond's normal force until its crack opens: k_n where it is
  // shorter than its rest length (an elastic bond has no plastic offset).
  static double BrokenNormal(const BondParameters& /*law*/, const BondConstants& c,
                             double shortening, const double* /*state*/) {
    return shortening > 0.0 ? c.normal_stiffness * shortening : 0.0;
  }

  // The shear spring's trial force is k_t times the accumulated slip; the
  // stored force is that trial times HistoryScale's inverse (1 here).
  static double HistoryScale(const double* /*state*/) { return 1.0; }

  // Factor on the trial shear force of an intact bond (1: no damage); sets
  // `failure` where the shear stress passes the strength (the force still acts
  // this step, as in Kratos) and `criterion` to F_s / ℱ_t.
  static double ShearScale(const BondParameters& law, const BondConstants& c, double normal,
                           double trial, double /*slip*/, double* /*state*/, std::uint8_t& failure,
                           double& criterion) {
    const double sigma = normal / c.area, tau = trial / c.area;
    const double strength =
        law.shear_strength + (sigma >= 0.0 ? law.internal_friction * sigma : 0.0);
    criterion = strength > 0.0 ? tau / strength : (tau > 0.0 ? 1.0 : 0.0);
    // A shear stress below 1e-9 of the normal stress is the round-off of
    // projecting onto the tangent plane, not a load: it must not break a
    // bond without cohesion (CONTACT_TAU_ZERO 0) under pure tension.
    if (tau > strength + 1e-9 * std::abs(sigma) && !law.unbreakable)
      failure = static_cast<std::uint8_t>(BondState::kShearFailure);
    return 1.0;
  }
};

}  // namespace tessera::dem
