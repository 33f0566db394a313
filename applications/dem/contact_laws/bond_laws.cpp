// The bond laws' parameters from the materials (bond_laws.h).
#include "applications/dem/contact_laws/bond_laws.h"

#include <cmath>
#include <limits>

#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/dem_variables.h"
#include "kernel/core/error.h"
#include "kernel/model/properties.h"

namespace tessera::dem {
namespace {

bool AnyHas(const std::vector<const Properties*>& sources, const Variable<double>& variable) {
  for (const Properties* p : sources)
    if (p->Has(variable)) return true;
  return false;
}

// The mean of `variable` over `sources`, required (a missing strength is an
// error naming the key) or `default_value`; must lie in [low, high].
double ReadValue(const std::vector<const Properties*>& sources, const Variable<double>& variable,
                 bool required, double default_value, double low, double high,
                 const std::string& where, const char* meaning) {
  if (!AnyHas(sources, variable)) {
    if (required)
      TESSERA_ERROR(where, ": ", variable.Name(), " (", meaning, ") is missing; the law needs it");
    return default_value;
  }
  const double value = AverageOverProperties(sources, variable, nullptr, default_value);
  if (!std::isfinite(value) || !(value >= low) || !(value <= high))
    TESSERA_ERROR(where, ": ", variable.Name(), " (", meaning, ") must lie in [", low, ", ", high,
                  "], got ", value);
  return value;
}

constexpr double kHuge = std::numeric_limits<double>::max();

}  // namespace

void KdemBond::Read(const std::vector<const Properties*>&, BondParameters& bond,
                    const std::string&) {
  // Kratos' KDEM takes the tensile strength from the Mohr-Coulomb envelope
  // of τ_0 and φ = atan μ_i (where it meets the tension axis with a
  // circle): σ_t = 2 τ_0 cos φ / (1 + sin φ). CONTACT_SIGMA_MIN is not read.
  const double phi = std::atan(bond.internal_friction);
  bond.tension_strength = 2.0 * bond.shear_strength * std::cos(phi) / (1.0 + std::sin(phi));
}

void DempackBond::Read(const std::vector<const Properties*>& sources, BondParameters& bond,
                       const std::string& where) {
  bond.tension_strength = ReadValue(sources, CONTACT_SIGMA_MIN, true, 0.0, 0.0, kHuge, where,
                                    "tensile strength σ_t^f, Pa");
  bond.shear_strength =
      ReadValue(sources, CONTACT_TAU_ZERO, true, 0.0, 0.0, kHuge, where, "shear strength τ^f, Pa");
  if (AnyHas(sources, DAMAGE_FACTOR) &&
      AverageOverProperties(sources, DAMAGE_FACTOR, nullptr, 0.0) < 0.0)
    TESSERA_ERROR(where, ": DAMAGE_FACTOR = (u_n^f - u_n^l) / u_n^l must be >= 0, got ",
                  AverageOverProperties(sources, DAMAGE_FACTOR, nullptr, 0.0),
                  " (a failure displacement u^f below the limit displacement u^l)");
  if (AnyHas(sources, SHEAR_ENERGY_COEF) &&
      AverageOverProperties(sources, SHEAR_ENERGY_COEF, nullptr, 0.0) < 0.0)
    TESSERA_ERROR(where, ": SHEAR_ENERGY_COEF = (u_t^f - u_t^l) / u_t^l must be >= 0, got ",
                  AverageOverProperties(sources, SHEAR_ENERGY_COEF, nullptr, 0.0),
                  " (a failure displacement u^f below the limit displacement u^l)");
  bond.damage_factor =
      ReadValue(sources, DAMAGE_FACTOR, false, 0.0, 0.0, kHuge, where, "(u_n^f - u_n^l) / u_n^l");
  bond.shear_energy_coef = ReadValue(sources, SHEAR_ENERGY_COEF, false, 0.0, 0.0, kHuge, where,
                                     "(u_t^f - u_t^l) / u_t^l");
  const Variable<double>* limits[] = {&SLOPE_LIMIT_COEFF_C1, &SLOPE_LIMIT_COEFF_C2,
                                      &SLOPE_LIMIT_COEFF_C3};
  const Variable<double>* fractions[] = {&SLOPE_FRACTION_N1, &SLOPE_FRACTION_N2,
                                         &SLOPE_FRACTION_N3};
  for (int i = 0; i < 3; ++i) {
    // A branch not given never starts.
    bond.slope_limit[i] = ReadValue(sources, *limits[i], false, kHuge, 0.0, kHuge, where,
                                    "compressive limit stress LCS, Pa");
    if (i > 0 && bond.slope_limit[i] < bond.slope_limit[i - 1])
      TESSERA_ERROR(where, ": ", limits[i]->Name(), " (", bond.slope_limit[i], ") is below ",
                    limits[i - 1]->Name(), " (", bond.slope_limit[i - 1],
                    "); the compressive branches' limits must not decrease");
    bond.slope_fraction[i] = ReadValue(sources, *fractions[i], false, 1.0, 1e-12, kHuge, where,
                                       "YRC = E_0 / E_i of the branch, > 0");
  }
  ReadValue(sources, YOUNG_MODULUS_PLASTIC, false, 0.0, 0.0, kHuge, where, "Pa");
  ReadValue(sources, PLASTIC_YIELD_STRESS, false, 0.0, 0.0, kHuge, where, "Pa");
  // Kratos' DEM_Dempack damps the bond's normal motion with c_n = 2 (1 - e)
  // sqrt(m* k_n), e the mean restitution of the materials (not the contact
  // law's map), and its shear not at all (kShearDashpot).
  if (AnyHas(sources, COEFFICIENT_OF_RESTITUTION)) {
    const double restitution =
        AverageOverProperties(sources, COEFFICIENT_OF_RESTITUTION, nullptr, 0.0);
    if (!(restitution >= 0.0 && restitution <= 1.0))
      TESSERA_ERROR(where, ": COEFFICIENT_OF_RESTITUTION must be in [0, 1], got ", restitution);
    bond.damping_ratio = 1.0 - restitution;
  }
}

std::string BondLawNames() {
  std::string names;
  BondLaws::ForEach([&]<class L>(std::type_identity<L>) {
    names += (names.empty() ? "" : ", ") + std::string(L::kName);
  });
  return names;
}

void ReadBondLaw(const std::string& name, const std::vector<const Properties*>& sources,
                 BondParameters& bond, const std::string& where) {
  const int index = BondLaws::IndexOfName(name);
  if (index < 0)
    TESSERA_ERROR(where, ": DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME '", name,
                  "' is not supported; this build provides ", BondLawNames());
  bond.law = static_cast<std::uint8_t>(index);
  bond.normal_factor = ReadValue(sources, BOND_NORMAL_STIFFNESS_FACTOR, false, 1.0, 1e-12, kHuge,
                                 where, "α of k_n = α E A / L, > 0");
  bond.tangential_factor = ReadValue(sources, BOND_TANGENTIAL_STIFFNESS_FACTOR, false, 1.0, 0.0,
                                     kHuge, where, "β of k_t = β G A / L, >= 0");
  bond.bond_range = ReadValue(sources, BOND_RANGE_BETA, false, -1.0, 0.0, 1.0, where,
                              "β of the bond criterion |d / (R_i + R_j) - 1| <= β");
  BondLaws::Visit(static_cast<ContactLaw>(index),
                  [&]<class L>(std::type_identity<L>) { L::Read(sources, bond, where); });
}

}  // namespace tessera::dem
