// DEM_D_Linear_classic: the linear law with PFC's stiffness (Potyondy & Cundall
// 2004, as Kratos' law of that name): k_n = π E* ρ with ρ = r_min² / (R_i +
// R_j) between spheres and ρ = R_i against a wall; k_t = k_n / (2 (1 + ν)), ν
// the harmonic mean of the two Poisson ratios. Written as k_n = 2 E' ρ, k_t =
// 8 G' ρ with E' = π/2 E* and G' = E' / (8 (1 + ν)).
#pragma once

#include <numbers>

#include "applications/dem/contact_laws/laws/law_defaults.h"

namespace tessera::dem {

struct LinearClassic : LinearLawDefaults {
  static constexpr const char* kName = "DEM_D_Linear_classic";

  static void FinishMaterials(PairParameters& p, const PairMaterials& m) {
    const double poisson_sum = m.first.poisson + m.second.poisson;
    const double poisson =
        poisson_sum > 0.0 ? 2.0 * m.first.poisson * m.second.poisson / poisson_sum : 0.0;
    p.effective_young *= 0.5 * std::numbers::pi;
    p.effective_shear = p.effective_young / (8.0 * (1.0 + poisson));
  }
  // A bar of the smaller sphere's cross-section over the centres' distance.
  static double StiffnessRadius(double /*pair_radius*/, double ri, double rj) {
    const double smaller = ri < rj ? ri : rj;
    return smaller * smaller / (ri + rj);
  }
};

}  // namespace tessera::dem
