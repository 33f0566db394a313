// DEM_D_Hertz_viscous_Coulomb: Hertz-Mindlin with damping (HM+D, thesis 2.35,
// 2.38): a = sqrt(R δ), k_n = 2 E* a, k_t = 8 G* a, F_ne = 2/3 k_n δ; ξ from
// the exact restitution map or, with HertzDampingMap::kThorntonFit, Kratos' fit.
#pragma once

#include <algorithm>
#include <cmath>

#include "applications/dem/contact_laws/laws/law_defaults.h"

namespace tessera::dem {

struct HertzViscousCoulomb : LinearLawDefaults {
  static constexpr const char* kName = "DEM_D_Hertz_viscous_Coulomb";
  static constexpr bool kBatch = true;

  // x'' = -x^{3/2} - sqrt(6) ξ x^{1/4} x'.
  static double ImpactForce(double xi, double x, double v) {
    const double root = std::sqrt(x);
    return x * root + std::sqrt(6.0) * xi * std::sqrt(root) * v;
  }
  template <class ExactMap>
  static double DampingRatio(double restitution, HertzDampingMap map, ExactMap exact) {
    return map == HertzDampingMap::kThorntonFit ? ThorntonDampingRatio(restitution) : exact();
  }
  template <class T, class Math>
  [[gnu::always_inline]] static void Elastic(const T& young, const T& shear, const T& radius,
                                             const T& overlap, T& kn, T& kt, T& fne) {
    const T contact_radius = Math::Sqrt(radius * overlap);  // a = sqrt(R δ) (A.10)
    kn = 2.0 * young * contact_radius;
    kt = 8.0 * shear * contact_radius;
    fne = (2.0 / 3.0) * kn * overlap;
  }
  // (8/15) E* sqrt(R) δ^{5/2} (A.15).
  static double Energy(double fne, double overlap) { return 0.4 * fne * overlap; }
  // F_ne = (2/3) k_n δ, E = (2/5) F_ne δ = 2.4 F_ne² G* / (E* k_t).
  static double StoredEnergy(const PairParameters& p, double f2, double tangential_stiffness) {
    if (!(tangential_stiffness > 0.0)) return 0.0;
    return 2.4 * f2 * p.effective_shear / (p.effective_young * tangential_stiffness);
  }
  // Hertz impact at the reference speed v (thesis Appendix A): γ = 16 E*
  // sqrt(R) / (15 m), overlap (1/γ)^(2/5) v^(4/5) (A.17), t_c = 2.94328 overlap
  // / v (A.19), and k_n at that overlap.
  static ContactTimeEstimate ContactTime(const PairParameters& p, double radius, double mass,
                                         double reference_speed) {
    const double v = std::max(reference_speed, 1e-12);
    const double gamma = 16.0 * p.effective_young * std::sqrt(radius) / (15.0 * mass);
    const double overlap = std::pow(1.0 / gamma, 0.4) * std::pow(v, 0.8);
    const double tc = 2.94328 * overlap / v;
    return {2.0 * p.effective_young * std::sqrt(radius * overlap), tc};
  }
};

}  // namespace tessera::dem
