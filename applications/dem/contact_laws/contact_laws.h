// The contact laws of this build: one header per law in laws/ (law_defaults.h
// says what a law provides) and this one list. The law names, the dispatch
// from a pair's ContactLaw to its law, the time-step estimate and the energies
// loop over the list; adding a law is its header and one entry here
// (docs/writing_an_application.md, "Adding a contact law"). A law's id is its
// position: the order is that of the names in error messages.
#pragma once

#include "applications/dem/contact_laws/law_list.h"
#include "applications/dem/contact_laws/laws/hertz_viscous_coulomb.h"
#include "applications/dem/contact_laws/laws/linear_classic.h"
#include "applications/dem/contact_laws/laws/linear_simple_coulomb.h"
#include "applications/dem/contact_laws/laws/linear_viscous_coulomb.h"
#include "applications/dem/contact_laws/laws/linear_viscous_coulomb_2d.h"
#include "applications/dem/contact_laws/laws/linear_walton_braun.h"

namespace tessera::dem {

using ContactLaws = LawList<LinearViscousCoulomb,    //
                            HertzViscousCoulomb,     //
                            LinearClassic,           //
                            LinearSimpleCoulomb,     //
                            LinearViscousCoulomb2D,  //
                            LinearWaltonBraun>;

static_assert(ContactLaws::NamesAreUnique(), "two contact laws share a name");

// The id of law L among the laws of this build.
template <class L>
inline constexpr ContactLaw kLawId = ContactLaws::Id<L>();
static_assert(kLawId<HertzViscousCoulomb> == kDefaultContactLaw);

// The radius ρ that the stiffness of a contact of two spheres of radii ri, rj
// is proportional to under `law`: R_eq = ri rj / (ri + rj) (`pair_radius`)
// but for DEM_D_Linear_classic (laws/linear_classic.h).
template <class Laws = ContactLaws>
inline double StiffnessRadius(ContactLaw law, double pair_radius, double ri, double rj) {
  return Laws::Visit(
      law, [&]<class L>(std::type_identity<L>) { return L::StiffnessRadius(pair_radius, ri, rj); });
}

// Laws of 2D discs (Dimension 2) as opposed to 3D spheres.
template <class Laws = ContactLaws>
inline bool IsPlanarLaw(ContactLaw law) {
  return Laws::Visit(law, []<class L>(std::type_identity<L>) { return L::kPlanar; });
}

// Whether the batch kernel evaluates `law` (pair_contact_batch.h).
template <class Laws = ContactLaws>
inline bool LawHasBatch(ContactLaw law) {
  return Laws::Visit(law, []<class L>(std::type_identity<L>) { return L::kBatch; });
}

// The normal stiffness and contact time of an impact of pair p at the
// reference speed, with the pair's equivalent radius and mass.
template <class Laws = ContactLaws>
inline ContactTimeEstimate EstimateContactTime(const PairParameters& p, double radius, double mass,
                                               double reference_speed) {
  return Laws::Visit(p.law, [&]<class L>(std::type_identity<L>) {
    return L::ContactTime(p, radius, mass, reference_speed);
  });
}

}  // namespace tessera::dem
