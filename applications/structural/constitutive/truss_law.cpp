// TrussConstitutiveLaw: S = E * strain (axial), see the header.
#include "constitutive/truss_law.h"

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"

namespace tessera::structural {

int TrussConstitutiveLaw::Check(const Properties& properties, const Geometry&,
                                const ProcessInfo&) const {
  if (!properties.Has(YOUNG_MODULUS) || !(properties.GetValue(YOUNG_MODULUS) > 0.0))
    TESSERA_ERROR("TrussConstitutiveLaw: properties ", properties.Id(),
                  " need a positive YOUNG_MODULUS");
  return 0;
}

void TrussConstitutiveLaw::CalculateMaterialResponse(Parameters& values, StressMeasure measure) {
  if (measure != StressMeasure::PK2)
    TESSERA_ERROR(
        "TrussConstitutiveLaw: only the PK2 stress is provided (the truss element asks "
        "for it)");
  Check(*values.properties, *values.geometry, *values.process_info);
  if (values.strain_vector.size() != 1)
    TESSERA_ERROR("TrussConstitutiveLaw: expected 1 strain component, got ",
                  values.strain_vector.size());
  const double young = values.properties->GetValue(YOUNG_MODULUS);
  if (values.compute_stress) {
    values.stress_vector.resize(1);
    values.stress_vector[0] = young * values.strain_vector[0];
  }
  if (values.compute_constitutive_tensor) {
    values.constitutive_matrix.resize(1, 1);
    values.constitutive_matrix(0, 0) = young;
  }
}

double& TrussConstitutiveLaw::CalculateValue(Parameters& values, const Variable<double>& variable,
                                             double& value) {
  if (&variable != &STRAIN_ENERGY) return ConstitutiveLaw::CalculateValue(values, variable, value);
  const Properties* properties = values.properties;
  if (!properties) TESSERA_ERROR("TrussConstitutiveLaw: called without properties");
  if (!properties->Has(YOUNG_MODULUS) || !(properties->GetValue(YOUNG_MODULUS) > 0.0))
    TESSERA_ERROR("TrussConstitutiveLaw: properties ", properties->Id(),
                  " need a positive YOUNG_MODULUS");
  if (values.strain_vector.size() != 1)
    TESSERA_ERROR("TrussConstitutiveLaw: expected 1 strain component, got ",
                  values.strain_vector.size());
  const double strain = values.strain_vector[0];
  value = 0.5 * properties->GetValue(YOUNG_MODULUS) * strain * strain;
  return value;
}

}  // namespace tessera::structural
