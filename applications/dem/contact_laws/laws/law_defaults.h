// What every contact law header provides (contact_laws.h lists the laws), with
// the values of the 3D linear spring-dashpot law (thesis 2.33) as defaults: a
// law derives from LinearLawDefaults and redefines what differs. A law is a
// struct of static members:
//
//   kName            its Kratos name (DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME)
//   kPlanar          a law of 2D discs rather than 3D spheres
//   kBatch           the batch kernel (pair_contact_batch.cpp) evaluates it
//   ImpactForce      its dimensionless normal force at overlap x >= 0 and rate v
//                    for damping ratio ξ (the restitution <-> damping map)
//   DampingRatio     ξ of restitution e (`exact()`: the exact map of ImpactForce)
//   FinishRelation   the relation's values as the law reads them (frictions)
//   FinishMaterials  E*, G* as the law uses them, so that k_n = 2 E* ρ and
//                    k_t = 8 G* ρ hold in the batch kernel (contact_law.h)
//   StiffnessRadius  ρ of two spheres of radii ri, rj, pair radius R_eq
//   Elastic          k_n, k_t and F_ne at overlap δ: a template over the number
//                    type (double, or the kernel's vectors of 4 and 8 lanes) and
//                    its Math (Sqrt, Select, Any), so that every path runs one source
//   Force            the contact's force and its history update, a template
//                    over the same number types: by default the viscous
//                    Coulomb force (viscous_coulomb.h) with the law's Elastic.
//                    The scalar path (ComputeContactForce) and the batch kernel
//                    (pair_contact_lanes.inc) both run it: one source, bitwise
//                    equal by construction
//   Energy           the normal elastic energy at F_ne, δ
//   StoredEnergy     the same from the history (F_ne², k_t): NormalElasticEnergy
//   EnergySlope      dE/dδ along a first loading from rest, at F_ne: F_ne for
//                    an elastic law (its Energy is the integral of F_ne); the
//                    energy-consistent ADM forces (adm_energy_gradient.cpp)
//   ContactTime      k_n and the contact time of an impact, for the time step
//   kHistoryDoubles  the doubles of history a contact keeps, its first five
//                    laid out as the viscous Coulomb force's (spring, k_t, F_ne;
//                    ViscousCoulombHistory). A law may keep more (damage,
//                    plastic state): its Force gets all of them; the contact
//                    lists keep the rest in a side table as contact_force.h
//                    says (LawExtraHistory, ExtraHistoryRow)
//   HistoryEnergy    optional: the stored energy from the contact and its
//                    history, for a law whose energy needs more than F_ne and
//                    δ (laws/linear_walton_braun.h); Energy otherwise
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>

#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/contact_laws/laws/viscous_coulomb.h"

namespace tessera::dem {

// The materials of a pair as FinishMaterials reads them.
struct PairMaterials {
  const MaterialConstants& first;  // the pair's materials
  const MaterialConstants& second;
  const MaterialConstants& sphere;  // the sphere's (the first's between two spheres)
  bool against_wall = false;
  bool two_spheres = false;  // both are particle materials and this is no wall pair
  LinearStiffness linear_stiffness = LinearStiffness::kThesis;
};

// The normal stiffness and the contact time of the time-step estimate.
struct ContactTimeEstimate {
  double normal_stiffness = 0.0;
  double contact_time = 0.0;
};

struct LinearLawDefaults {
  static constexpr bool kPlanar = false;
  static constexpr bool kBatch = false;
  static constexpr std::size_t kHistoryDoubles = 5;

  // x'' = -x - 2ξx' (the linear laws).
  static double ImpactForce(double xi, double x, double v) { return x + 2.0 * xi * v; }
  template <class ExactMap>
  static double DampingRatio(double /*restitution*/, HertzDampingMap, ExactMap exact) {
    return exact();
  }
  static void FinishRelation(PairParameters&) {}
  static void FinishMaterials(PairParameters&, const PairMaterials&) {}
  static double StiffnessRadius(double pair_radius, double /*ri*/, double /*rj*/) {
    return pair_radius;
  }
  // k_n = 2 E* R, k_t = 8 G* R, F_ne = k_n δ.
  template <class T, class Math>
  [[gnu::always_inline]] static void Elastic(const T& young, const T& shear, const T& radius,
                                             const T& overlap, T& kn, T& kt, T& fne) {
    kn = 2.0 * young * radius;
    kt = 8.0 * shear * radius;
    fne = kn * overlap;
  }
  // The viscous Coulomb force (viscous_coulomb.h) with L's Elastic. `h`: the
  // law's kHistoryDoubles doubles (or lanes), updated in place.
  template <class L, class T, class M, bool kPowers, class Friction>
  [[gnu::always_inline]] static LawForce<T, typename M::Mask> Force(const LawContact<T>& c, T* h,
                                                                    const typename M::Mask& sliding,
                                                                    Friction&& friction) {
    T kn, kt, fne;
    L::template Elastic<T, M>(c.young, c.shear, c.radius, c.overlap, kn, kt, fne);
    return ViscousCoulombForce<T, M, kPowers>(c, kn, kt, fne, h, sliding, friction);
  }
  // The elastic part of the force on the first body, from the updated history.
  template <class T>
  [[gnu::always_inline]] static void ElasticForce(const LawContact<T>& c, const T* h, T& ex, T& ey,
                                                  T& ez) {
    ViscousCoulombElasticForce(c, h, ex, ey, ez);
  }
  static double Energy(double fne, double overlap) { return 0.5 * fne * overlap; }
  static double EnergySlope(const PairParameters& /*p*/, double fne) { return fne; }
  // δ = F_ne / k_n with k_n = k_t E* / (4 G*): E = 2 F_ne² G* / (E* k_t).
  static double StoredEnergy(const PairParameters& p, double f2, double tangential_stiffness) {
    if (!(tangential_stiffness > 0.0)) return 0.0;
    return 2.0 * f2 * p.effective_shear / (p.effective_young * tangential_stiffness);
  }
  // t_c = π sqrt(m / k_n), half the period of the undamped spring.
  static ContactTimeEstimate ContactTime(const PairParameters& p, double radius, double mass,
                                         double /*reference_speed*/) {
    const double kn = 2.0 * p.effective_young * radius;
    return {kn, std::numbers::pi * std::sqrt(mass / kn)};
  }
};

}  // namespace tessera::dem
