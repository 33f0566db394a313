// Energy bookkeeping of the DEM strategy (EnergyCalculationOption; thesis
// §4.4.2).
//
// State energies are evaluated from the rows when asked:
//   kinetic           Σ ½ m |v|², Σ ½ I |ω|²
//   gravitational     -Σ m g·x (zero at the origin)
//   elastic           Σ over active contacts of the normal spring energy
//                     (linear ½ k_n δ², Hertz 8/15 E* √R δ^{5/2}) and the
//                     tangential spring energy |F_te|² / (2 k_t)
// Dissipated energies are accumulated at every force evaluation as power × Δt:
//   contact damping   normal dashpot (F_n - F_ne) δ' and tangential dashpot
//                     c_t |v_t|² while sticking
//   friction          F_t · v_t of the capped force while sliding
//   rolling           -M_r · ω_rel
//   global damping    -(F_d · v + T_d · ω) of the background damping
// With fixed walls and gravity the only external field, kinetic + potential +
// elastic + dissipated stays at its initial value up to the time
// discretisation error (tests/python/test_dem_energy.py). Free walls
// (FREE_BODY_MOTION) count in the kinetic (½ M |V|², ½ ω·L) and gravitational
// terms like particles; the work of imposed wall motion and of the loads
// applied to free walls is not counted.
#pragma once

#include <array>
#include <utility>

namespace tessera::dem {

struct EnergyTotals {
  double kinetic_translational = 0.0;
  double kinetic_rotational = 0.0;
  double gravitational_potential = 0.0;
  double elastic_normal = 0.0;
  double elastic_tangential = 0.0;
  double dissipated_damping = 0.0;
  double dissipated_friction = 0.0;
  double dissipated_rolling = 0.0;
  double dissipated_global_damping = 0.0;

  double Total() const;
};

// Every term with its name (the keys of GetEnergies() and the columns of the
// energy graph), in that order.
inline constexpr std::array<std::pair<const char*, double EnergyTotals::*>, 9> kEnergyTerms{{
    {"kinetic_translational", &EnergyTotals::kinetic_translational},
    {"kinetic_rotational", &EnergyTotals::kinetic_rotational},
    {"gravitational_potential", &EnergyTotals::gravitational_potential},
    {"elastic_normal", &EnergyTotals::elastic_normal},
    {"elastic_tangential", &EnergyTotals::elastic_tangential},
    {"dissipated_damping", &EnergyTotals::dissipated_damping},
    {"dissipated_friction", &EnergyTotals::dissipated_friction},
    {"dissipated_rolling", &EnergyTotals::dissipated_rolling},
    {"dissipated_global_damping", &EnergyTotals::dissipated_global_damping},
}};

inline double EnergyTotals::Total() const {
  double sum = 0.0;
  for (const auto& term : kEnergyTerms) sum += this->*term.second;
  return sum;
}

// Power of the dissipative forces of one contact at one force evaluation.
struct DissipationPower {
  double damping = 0.0;
  double friction = 0.0;
  double rolling = 0.0;
};

}  // namespace tessera::dem
