// DEM_D_Linear_Walton_Braun: the hysteretic (plastic) linear normal spring of
// Walton & Braun (1986), "Viscosity, granular-temperature, and stress
// calculations for shearing assemblies of inelastic, frictional disks",
// J. Rheology 30(5) 949-980, with the viscous Coulomb tangential part of the
// linear law. Not a Kratos law: Tessera's, written from the paper's formulas.
//
//   loading (δ >= δ_max):  F_ne = k_1 δ,                   k_1 = 2 E* R
//   unloading, reloading:  F_ne = max(0, k_2 (δ - δ_0)),   k_2 = k_1 / e²
//   plastic overlap:       δ_0 = δ_max (1 - k_1 / k_2) = δ_max (1 - e²)
//
// δ_max is the largest overlap the contact has reached; the two branches meet
// there. A normal impact loads along k_1 and unloads along k_2, so it
// rebounds with e = sqrt(k_1 / k_2) (the pair's COEFFICIENT_OF_RESTITUTION,
// 0 < e <= 1) whatever its speed: the dissipation is the spring's, and the
// law has no dashpot (ξ = 0). The contact keeps δ_max past the record's five
// doubles (kHistoryDoubles 6): the contact lists' side table (contact_force.h,
// ExtraHistoryRow); a contact that parts starts again from δ_max = 0.
//
// The tangential spring is the linear law's (k_t = 8 G* R, turned and capped
// by the slider as in viscous_coulomb.h). k_1 and k_t follow the linear law's
// stiffness option (LinearStiffness: Kratos' k_n carries its factor).
//
// Energies: the elastic energy a contact stores is what unloading along k_2
// gives back, F_ne² / (2 k_2), on both branches; the rest of the normal work,
// F_ne δ' (1 - e²) per unit time while loading, is dissipated, and is counted
// with the dashpots' power (damping_power).
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>

#include "applications/dem/contact_laws/laws/law_defaults.h"
#include "kernel/core/error.h"

namespace tessera::dem {

struct LinearWaltonBraun : LinearLawDefaults {
  static constexpr const char* kName = "DEM_D_Linear_Walton_Braun";
  static constexpr std::size_t kHistoryDoubles = 6;
  // After the viscous Coulomb record (ViscousCoulombHistory).
  enum : std::size_t { kLargestOverlap = 5 };

  // No dashpot: the hysteresis gives the restitution.
  template <class ExactMap>
  static double DampingRatio(double /*restitution*/, HertzDampingMap, ExactMap) {
    return 0.0;
  }
  static void FinishRelation(PairParameters& p) {
    if (!(p.restitution > 0.0))
      TESSERA_ERROR("contact law ", kName,
                    " needs COEFFICIENT_OF_RESTITUTION in (0, 1] in the material relation "
                    "(its unloading stiffness is k_1 / e^2), got ",
                    p.restitution);
  }
  static void FinishMaterials(PairParameters& p, const PairMaterials& m) {
    const double factor = LinearStiffnessFactor(m.linear_stiffness, m.against_wall);
    p.effective_young *= factor;
    p.effective_shear *= factor;
  }

  template <class L, class T, class M, bool kPowers, class Friction>
  [[gnu::always_inline]] static LawForce<T, typename M::Mask> Force(const LawContact<T>& c, T* h,
                                                                    const typename M::Mask& sliding,
                                                                    Friction&& friction) {
    using Mask = typename M::Mask;
    const T zero{};
    const T e2 = c.restitution * c.restitution;
    const T k1 = 2.0 * c.young * c.radius;
    const T k2 = k1 / e2;
    const T kt = 8.0 * c.shear * c.radius;
    const Mask loading = c.overlap >= h[kLargestOverlap];
    const T largest = M::Select(loading, c.overlap, h[kLargestOverlap]);
    const T unloaded = k2 * (c.overlap - largest * (1.0 - e2));
    const T fne = M::Select(loading, k1 * c.overlap, M::Select(unloaded < zero, zero, unloaded));
    h[kLargestOverlap] = largest;
    LawForce<T, Mask> out = ViscousCoulombForce<T, M, kPowers>(c, M::Select(loading, k1, k2), kt,
                                                               fne, h, sliding, friction);
    if constexpr (kPowers) {
      const T overlap_rate = -(c.vx * c.nx + c.vy * c.ny + c.vz * c.nz);
      out.damping_power =
          out.damping_power + M::Select(loading, fne * overlap_rate * (1.0 - e2), zero);
    }
    return out;
  }
  // F_ne² / (2 k_2): what unloading gives back.
  template <class T>
  static T HistoryEnergy(const LawContact<T>& c, const T* h) {
    const T k2 = 2.0 * c.young * c.radius / (c.restitution * c.restitution);
    return h[kNormalElasticForce] * h[kNormalElasticForce] / (2.0 * k2);
  }
  // Along a first loading F_ne = k_1 δ, so d(F_ne² / (2 k_2))/dδ = F_ne k_1 / k_2.
  static double EnergySlope(const PairParameters& p, double fne) {
    return fne * p.restitution * p.restitution;
  }
  // The same from F_ne² and k_t: k_2 = k_t E* / (4 G* e²).
  static double StoredEnergy(const PairParameters& p, double f2, double tangential_stiffness) {
    return LinearLawDefaults::StoredEnergy(p, f2, tangential_stiffness) * p.restitution *
           p.restitution;
  }
  // The stiffer spring bounds the time step: k_2, and half its period.
  static ContactTimeEstimate ContactTime(const PairParameters& p, double radius, double mass,
                                         double /*reference_speed*/) {
    const double k2 = 2.0 * p.effective_young * radius / (p.restitution * p.restitution);
    return {k2, std::numbers::pi * std::sqrt(mass / k2)};
  }
};

}  // namespace tessera::dem
