// A contact law that exists only for the tests (test_contact_law_lanes.cpp)
// and keeps more history than the five doubles of the viscous Coulomb record:
// a linear law with a plastic normal branch (the hysteretic spring of Walton
// & Braun 1986, written from its formulas). Loading, F_ne = k_1 δ with k_1 =
// 2 E* R; below the largest overlap reached, δ_max, the contact unloads along
// k_2 = kUnloading k_1: F_ne = k_2 (δ - δ_0), δ_0 = δ_max (1 - k_1/k_2) the
// plastic overlap, and F_ne >= 0. It keeps δ_max, δ_0 and the plastic work of
// a full unloading, W_p = k_1 δ_max² (1 - k_1/k_2) / 2 (the area between the
// two branches), after the record's five: eight doubles. The tangential part
// is the viscous Coulomb force's with k_t = 8 G* R. No batch kernel: the
// kernel reads the five-double records only (contact_force.h,
// LawExtraHistory). The build's own law of this kind, which the strategy runs,
// is laws/linear_walton_braun.h (one extra double); this one keeps three, so
// that in a list with both the Walton–Braun law reads the first of its
// side table row's three doubles only.
#pragma once

#include <cmath>
#include <numbers>

#include "applications/dem/contact_laws/laws/law_defaults.h"

namespace tessera::dem::test_laws {

struct PlasticLinear : LinearLawDefaults {
  static constexpr const char* kName = "TEST_Plastic_linear";
  static constexpr std::size_t kHistoryDoubles = 8;
  static constexpr double kUnloading = 4.0;  // k_2 / k_1
  enum : std::size_t { kLargestOverlap = 5, kPlasticOverlap = 6, kPlasticWork = 7 };

  template <class L, class T, class M, bool kPowers, class Friction>
  [[gnu::always_inline]] static LawForce<T, typename M::Mask> Force(const LawContact<T>& c, T* h,
                                                                    const typename M::Mask& sliding,
                                                                    Friction&& friction) {
    using Mask = typename M::Mask;
    const T zero{};
    const T k1 = 2.0 * c.young * c.radius;
    const T k2 = kUnloading * k1;
    const T kt = 8.0 * c.shear * c.radius;
    const Mask loading = c.overlap >= h[kLargestOverlap];
    const T largest = M::Select(loading, c.overlap, h[kLargestOverlap]);
    const T plastic = largest * (1.0 - 1.0 / kUnloading);
    const T unloaded = k2 * (c.overlap - plastic);
    const T fne = M::Select(loading, k1 * c.overlap, M::Select(unloaded < zero, zero, unloaded));
    const T kn = M::Select(loading, k1, k2);
    h[kLargestOverlap] = largest;
    h[kPlasticOverlap] = plastic;
    h[kPlasticWork] = 0.5 * k1 * largest * largest * (1.0 - 1.0 / kUnloading);
    return ViscousCoulombForce<T, M, kPowers>(c, kn, kt, fne, h, sliding, friction);
  }
  // On the loading branch only (the tests evaluate it there): F_ne² / (2 k_1).
  static double Energy(double fne, double overlap) { return 0.5 * fne * overlap; }
};

}  // namespace tessera::dem::test_laws
