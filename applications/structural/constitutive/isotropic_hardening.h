// The isotropic hardening law shared by the J2 plasticity laws (small and
// finite strain), with Kratos' property names:
//   k(alpha) = Y_inf + (Y_0 - Y_inf) exp(-delta alpha) + H alpha,
// Y_0 = YIELD_STRESS (required, > 0), H = ISOTROPIC_HARDENING_MODULUS (0 if
// absent), Y_inf = EXPONENTIAL_SATURATION_YIELD_STRESS (Y_0 if absent: linear
// hardening), delta = HARDENING_EXPONENT (0 if absent); alpha is the
// equivalent plastic strain. Softening (H < 0, Y_inf < Y_0) is rejected: the
// radial returns rely on k' >= 0 for their monotone Newton iteration.
#pragma once

#include <cmath>
#include <string>

#include "kernel/model/properties.h"

namespace tessera::structural {

struct IsotropicHardening {
  double y0, y_inf, delta, h;
  double k(double alpha) const {
    return y_inf + (y0 - y_inf) * std::exp(-delta * alpha) + h * alpha;
  }
  double dk(double alpha) const { return -delta * (y0 - y_inf) * std::exp(-delta * alpha) + h; }
};

// Reads and checks the hardening constants; errors name the law and properties.
IsotropicHardening ReadIsotropicHardening(const Properties& properties, const std::string& law);

// The plastic internal variables a law exposes to the elements' results
// (EQUIVALENT_PLASTIC_STRAIN, PLASTIC_STRAIN_TENSOR), committed state.
class PlasticInternalVariables {
 public:
  virtual ~PlasticInternalVariables() = default;
  virtual double EquivalentPlasticStrain() const = 0;
  // 3 x 3 (also for plane laws, whose out-of-plane plastic strain is not zero):
  // eps_p for small strains, E_p = (C_p - I) / 2 for finite strains.
  virtual Matrix PlasticStrainTensor() const = 0;
};

}  // namespace tessera::structural
