// The bond laws of this build: one header per law in bond_laws/ and this one
// list, as the pair contact laws (contact_laws.h). A bond law provides its
// name (kName, what DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME says), the size of its
// per-bond state (kStateSize doubles, kept in ContinuumBonds::law_state),
// Read (its parameters from the materials, with errors naming the key), its
// section before area correction (BaseArea) and the updates of an intact bond:
// Normal (force from the shortening), HistoryScale and ShearScale (the
// damage of the shear spring), and a broken bond's BrokenNormal (its push
// in compression, from its state as it broke). A bond's law is its position in the list.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "applications/dem/contact_laws/bond_laws/dempack_bond.h"
#include "applications/dem/contact_laws/bond_laws/kdem_bond.h"
#include "applications/dem/contact_laws/law_list.h"

namespace tessera::dem {

using BondLaws = LawList<KdemBond, DempackBond>;
static_assert(BondLaws::NamesAreUnique(), "two bond laws share a name");

// The largest per-bond state of the laws.
inline constexpr std::size_t kMaxBondStateSize =
    std::max(KdemBond::kStateSize, DempackBond::kStateSize);

// "DEM_KDEM, DEM_Dempack", for messages.
std::string BondLawNames();

// Reads the bond law named by the Properties in `sources`' parameters into
// `bond` (law, strengths, damage, branches, β); errors start with `where`.
void ReadBondLaw(const std::string& name, const std::vector<const Properties*>& sources,
                 BondParameters& bond, const std::string& where);

}  // namespace tessera::dem
