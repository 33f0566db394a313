// One bond along a prescribed displacement path (bond_law_path.h).
#include "applications/dem/contact_laws/bond_law_path.h"

#include <algorithm>
#include <cmath>

#include "applications/dem/contact_laws/bond_laws.h"
#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/dem_variables.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/properties.h"

namespace tessera::dem {

BondParameters BondParametersOf(const Properties& material, const std::string& where) {
  if (!material.Has(DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME))
    TESSERA_ERROR(where, ": DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME is missing");
  const std::string name = material.GetValue(DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME);
  const std::vector<const Properties*> sources{&material};
  BondParameters bond;
  bond.defined = true;
  const double young = material.Has(YOUNG_MODULUS) ? material.GetValue(YOUNG_MODULUS) : -1.0;
  const double poisson = material.Has(POISSON_RATIO) ? material.GetValue(POISSON_RATIO) : -1.0;
  if (!(young > 0.0)) TESSERA_ERROR(where, ": YOUNG_MODULUS must be > 0, got ", young);
  if (!(poisson >= 0.0 && poisson <= 0.5))
    TESSERA_ERROR(where, ": POISSON_RATIO must lie in [0, 0.5], got ", poisson);
  bond.young = young;
  bond.shear = young / (2.0 * (1.0 + poisson));
  bond.shear_strength = AverageOverProperties(sources, CONTACT_TAU_ZERO, nullptr, 0.0);
  bond.internal_friction = AverageOverProperties(sources, CONTACT_INTERNAL_FRICC, nullptr, 0.0);
  bond.friction = AverageOverProperties(sources, STATIC_FRICTION, &FRICTION, 0.0);
  for (const auto& [key, value] :
       {std::pair<const char*, double>{"CONTACT_TAU_ZERO", bond.shear_strength},
        {"CONTACT_INTERNAL_FRICC", bond.internal_friction},
        {"STATIC_FRICTION", bond.friction}})
    if (!(value >= 0.0) || !std::isfinite(value))
      TESSERA_ERROR(where, ": ", key, " must be >= 0, got ", value);
  if (material.Has(IS_UNBREAKABLE) && material.GetValue(IS_UNBREAKABLE)) bond.unbreakable = true;
  ReadBondLaw(name, sources, bond, where);
  return bond;
}

BondPath EvaluateBondLawPath(const Properties& material, double area, double length,
                             const std::vector<double>& shortening, const std::vector<double>& slip,
                             BondDamage damage) {
  if (shortening.size() != slip.size())
    TESSERA_ERROR("EvaluateBondLawPath: ", shortening.size(), " shortenings but ", slip.size(),
                  " tangential displacements");
  if (!(area > 0.0 && length > 0.0))
    TESSERA_ERROR("EvaluateBondLawPath: area and length must be > 0");
  BondParameters law = BondParametersOf(material, "EvaluateBondLawPath");
  law.damage = damage;
  const BondConstants c =
      MakeBondConstants(law, area, 1.0, 1.0, length, 0.5 * length, 0.5 * length);
  std::vector<double> state(kMaxBondStateSize, 0.0);
  BondLaws::Visit(static_cast<ContactLaw>(law.law), [&]<class L>(std::type_identity<L>) {
    if constexpr (L::kStateSize > 0) L::InitializeState(state.data());
  });
  BondPath path;
  path.normal_stiffness = c.normal_stiffness;
  path.tangential_stiffness = c.tangential_stiffness;
  std::uint8_t failure = static_cast<std::uint8_t>(BondState::kIntact);
  double stored = 0.0, previous_slip = 0.0;
  for (std::size_t k = 0; k < shortening.size(); ++k) {
    const double delta = shortening[k];
    double normal = 0.0, shear = 0.0, criterion = 1.0;
    BondLaws::Visit(static_cast<ContactLaw>(law.law), [&]<class L>(std::type_identity<L>) {
      const bool was_intact = failure == static_cast<std::uint8_t>(BondState::kIntact);
      double normal_criterion = 0.0, shear_criterion = 0.0;
      if (was_intact)
        normal = L::Normal(law, c, delta, state.data(), failure, normal_criterion);
      else
        normal = L::BrokenNormal(law, c, delta, state.data());
      const bool intact = failure == static_cast<std::uint8_t>(BondState::kIntact);
      const double increment = c.tangential_stiffness * (slip[k] - previous_slip);
      if (intact) {
        const double trial = L::HistoryScale(state.data()) * stored + increment;
        const double scale =
            L::ShearScale(law, c, normal, std::abs(trial), std::abs(slip[k] - previous_slip),
                          state.data(), failure, shear_criterion);
        shear = scale * trial;
      } else if (delta > 0.0) {
        shear = stored + increment;
        const double limit = law.friction * std::max(normal, 0.0);
        if (std::abs(shear) > limit) shear = std::copysign(limit, shear);
      }
      criterion = failure == static_cast<std::uint8_t>(BondState::kIntact)
                      ? std::max(normal_criterion, shear_criterion)
                      : 1.0;
    });
    stored = shear;
    previous_slip = slip[k];
    path.normal.push_back(normal);
    path.shear.push_back(shear);
    path.criterion.push_back(criterion);
    path.state.push_back(failure);
  }
  return path;
}

}  // namespace tessera::dem
