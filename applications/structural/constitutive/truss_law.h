// TrussConstitutiveLaw (Kratos' name): the one-dimensional linear elastic law
// of a bar, S = YOUNG_MODULUS * E with E the axial Green-Lagrange strain and S
// the axial PK2 stress; tangent dS/dE = YOUNG_MODULUS. Strain size 1. The
// prestress TRUSS_PRESTRESS_PK2 is the element's (added to S there, as Kratos).
// CalculateValue(STRAIN_ENERGY): 1/2 YOUNG_MODULUS E^2 per unit reference volume
// (the element adds its prestress' S_0 E).
#pragma once

#include <string>

#include "kernel/model/constitutive_law.h"

namespace tessera::structural {

class TrussConstitutiveLaw final : public ConstitutiveLaw {
 public:
  Pointer Clone() const override { return std::make_shared<TrussConstitutiveLaw>(*this); }
  int WorkingSpaceDimension() const override { return 3; }
  int GetStrainSize() const override { return 1; }
  void CalculateMaterialResponse(Parameters& values, StressMeasure measure) override;
  double& CalculateValue(Parameters& values, const Variable<double>& variable,
                         double& value) override;
  bool RequiresFinalizeMaterialResponse() const override { return false; }  // no state
  int Check(const Properties& properties, const Geometry& geometry,
            const ProcessInfo& info) const override;
  std::string Info() const override { return "TrussConstitutiveLaw"; }
};

}  // namespace tessera::structural
