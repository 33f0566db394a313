// Reading and checking the isotropic hardening constants.
#include "constitutive/isotropic_hardening.h"

#include "kernel/core/error.h"
#include "structural_variables.h"

namespace tessera::structural {

IsotropicHardening ReadIsotropicHardening(const Properties& p, const std::string& law) {
  if (!p.Has(YIELD_STRESS) || !(p.GetValue(YIELD_STRESS) > 0.0))
    TESSERA_ERROR(law, ": properties ", p.Id(), " need a positive YIELD_STRESS");
  const auto get = [&](const Variable<double>& v, double fallback) {
    return p.Has(v) ? p.GetValue(v) : fallback;
  };
  IsotropicHardening h{};
  h.y0 = p.GetValue(YIELD_STRESS);
  h.h = get(ISOTROPIC_HARDENING_MODULUS, 0.0);
  h.y_inf = get(EXPONENTIAL_SATURATION_YIELD_STRESS, h.y0);
  h.delta = get(HARDENING_EXPONENT, 0.0);
  if (!(h.h >= 0.0) || !(h.delta >= 0.0) || !(h.y_inf >= h.y0))
    TESSERA_ERROR(law, ": properties ", p.Id(),
                  ": need ISOTROPIC_HARDENING_MODULUS >= 0, HARDENING_EXPONENT >= 0 and "
                  "EXPONENTIAL_SATURATION_YIELD_STRESS >= YIELD_STRESS (softening is not "
                  "supported)");
  return h;
}

}  // namespace tessera::structural
