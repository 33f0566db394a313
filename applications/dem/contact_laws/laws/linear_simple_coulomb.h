// DEM_D_Linear_Simple_Coulomb: Kratos' undamped linear law (Guo & Zhao 2014, as
// Rangel et al. 2024 use it): k_n = E 2 R_eq between spheres, E R against a
// wall (the sphere's E alone; E, ν the mean of the two spheres' where they
// differ), k_t = ν k_n, no dashpot (the restitution is not read), and a slider
// with μ = tan(STATIC_FRICTION): Kratos reads that coefficient as an angle.
#pragma once

#include <cmath>

#include "applications/dem/contact_laws/laws/law_defaults.h"

namespace tessera::dem {

struct LinearSimpleCoulomb : LinearLawDefaults {
  static constexpr const char* kName = "DEM_D_Linear_Simple_Coulomb";

  template <class ExactMap>
  static double DampingRatio(double /*restitution*/, HertzDampingMap, ExactMap /*exact*/) {
    return 0.0;  // no dashpot
  }
  // One coefficient, tan(STATIC_FRICTION), sliding or not.
  static void FinishRelation(PairParameters& p) {
    p.static_friction = p.dynamic_friction = std::tan(p.static_friction);
    p.friction_decay = -1.0;
  }
  // k_n = E 2 R_eq = 2 E' R_eq (E' = E) between spheres, E R = 2 E' R (E' =
  // E / 2) against a wall; k_t = ν k_n = 8 G' ρ with G' = ν E' / 4.
  static void FinishMaterials(PairParameters& p, const PairMaterials& m) {
    const double young = m.two_spheres ? 0.5 * (m.first.young + m.second.young) : m.sphere.young;
    const double poisson =
        m.two_spheres ? 0.5 * (m.first.poisson + m.second.poisson) : m.sphere.poisson;
    p.effective_young = m.against_wall ? 0.5 * young : young;
    p.effective_shear = 0.25 * poisson * p.effective_young;
  }
};

}  // namespace tessera::dem
