// One bond driven along a prescribed path of normal and tangential
// displacements, by the same law updates the strategy uses (bond_laws.h):
// for unit tests against the closed forms of each branch, and for checking a
// material's bond parameters where they are read (MaterialsDEM.json).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "applications/dem/contact_laws/bond_law.h"

namespace tessera {
class Properties;
}

namespace tessera::dem {

// The bond parameters of one material used on both sides of the bond (its
// DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME and the law's keys); errors start with `where`.
BondParameters BondParametersOf(const Properties& material, const std::string& where);

struct BondPath {
  std::vector<double> normal;     // compression positive
  std::vector<double> shear;      // along the slip's direction
  std::vector<double> criterion;  // Failure Criterion State (thesis 5.44)
  std::vector<int> state;         // BondState
  double normal_stiffness = 0.0, tangential_stiffness = 0.0;
};

// The bond of section `area` and rest length `length` taken through the
// shortenings L - d and the tangential displacements (along one direction)
// of `shortening` and `slip`, one step each; a broken bond is a frictional
// contact with the same stiffness (continuum_bonds.h). `damage`: BondDamage.
BondPath EvaluateBondLawPath(const Properties& material, double area, double length,
                             const std::vector<double>& shortening, const std::vector<double>& slip,
                             BondDamage damage = BondDamage::kKratos);

}  // namespace tessera::dem
