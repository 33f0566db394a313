// A contact law that exists only for the tests (test_contact_law_list.cpp):
// the linear spring-dashpot law with twice its stiffnesses. It is the whole
// of what adding a law takes (docs/writing_an_application.md, "Adding a
// contact law"): this header and its entry in a list of laws.
#pragma once

#include "applications/dem/contact_laws/laws/law_defaults.h"

namespace tessera::dem::test_laws {

struct StiffLinear : LinearLawDefaults {
  static constexpr const char* kName = "TEST_Stiff_linear";

  // k_n = 4 E* R, k_t = 16 G* R, F_ne = k_n δ.
  template <class T, class Math>
  [[gnu::always_inline]] static void Elastic(const T& young, const T& shear, const T& radius,
                                             const T& overlap, T& kn, T& kt, T& fne) {
    kn = 4.0 * young * radius;
    kt = 16.0 * shear * radius;
    fne = kn * overlap;
  }
  // E = F_ne² / (2 k_n) with k_n = k_t E* / (4 G*).
  static double StoredEnergy(const PairParameters& p, double f2, double tangential_stiffness) {
    if (!(tangential_stiffness > 0.0)) return 0.0;
    return 2.0 * f2 * p.effective_shear / (p.effective_young * tangential_stiffness);
  }
  static ContactTimeEstimate ContactTime(const PairParameters& p, double radius, double mass,
                                         double /*reference_speed*/) {
    const double kn = 4.0 * p.effective_young * radius;
    return {kn, std::numbers::pi * std::sqrt(mass / kn)};
  }
};

}  // namespace tessera::dem::test_laws
