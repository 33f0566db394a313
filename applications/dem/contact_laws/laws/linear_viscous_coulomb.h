// DEM_D_Linear_viscous_Coulomb: linear spring-dashpot + Coulomb slider (LS+D,
// thesis 2.33): k_n = 2 E* R, k_t = 8 G* R, F_ne = k_n δ, ξ from the exact
// restitution map. Under LinearStiffness::kKratos E* and G* carry
// LinearStiffnessFactor (Kratos' k_n, between spheres or against a wall).
#pragma once

#include "applications/dem/contact_laws/laws/law_defaults.h"

namespace tessera::dem {

struct LinearViscousCoulomb : LinearLawDefaults {
  static constexpr const char* kName = "DEM_D_Linear_viscous_Coulomb";
  static constexpr bool kBatch = true;

  static void FinishMaterials(PairParameters& p, const PairMaterials& m) {
    const double factor = LinearStiffnessFactor(m.linear_stiffness, m.against_wall);
    p.effective_young *= factor;
    p.effective_shear *= factor;
  }
};

}  // namespace tessera::dem
