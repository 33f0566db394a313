// DEM_D_Linear_viscous_Coulomb2D: the linear law of 2D discs
// (CylinderParticle2D, unit thickness): Kratos' line-contact stiffness per
// unit length k_n = (π/4) E*, independent of the radius; k_t = k_n 4G*/E* =
// π G*. Forces are per metre of thickness, like the disc masses.
#pragma once

#include <cmath>
#include <numbers>

#include "applications/dem/contact_laws/laws/law_defaults.h"

namespace tessera::dem {

struct LinearViscousCoulomb2D : LinearLawDefaults {
  static constexpr const char* kName = "DEM_D_Linear_viscous_Coulomb2D";
  static constexpr bool kPlanar = true;

  template <class T, class Math>
  [[gnu::always_inline]] static void Elastic(const T& young, const T& shear, const T& /*radius*/,
                                             const T& overlap, T& kn, T& kt, T& fne) {
    kn = 0.25 * std::numbers::pi * young;
    kt = std::numbers::pi * shear;
    fne = kn * overlap;
  }
  // k_n = (π/4) E*: E = F_ne² / (2 k_n) = 2 F_ne² / (π E*).
  static double StoredEnergy(const PairParameters& p, double f2, double /*tangential_stiffness*/) {
    return 2.0 * f2 / (std::numbers::pi * p.effective_young);
  }
  static ContactTimeEstimate ContactTime(const PairParameters& p, double /*radius*/, double mass,
                                         double /*reference_speed*/) {
    const double kn = 0.25 * std::numbers::pi * p.effective_young;
    return {kn, std::numbers::pi * std::sqrt(mass / kn)};
  }
};

}  // namespace tessera::dem
