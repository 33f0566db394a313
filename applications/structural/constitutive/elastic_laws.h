// Elastic constitutive laws of the structural application, with Kratos' names:
//
//   LinearElastic3DLaw, LinearElasticPlaneStrain2DLaw, LinearElasticPlaneStress2DLaw
//       S = D E with the isotropic Hooke matrix D(E, nu). With a total-Lagrangian
//       element (E = Green-Lagrange strain, S = PK2) this is St. Venant-Kirchhoff.
//   KirchhoffSaintVenant3DLaw, KirchhoffSaintVenantPlaneStrain2DLaw
//       the same S(E), and a Cauchy response pushed forward, sigma = F S F^T / J.
//   HyperElastic3DLaw, HyperElasticPlaneStrain2DLaw
//       compressible Neo-Hookean, W = lambda/2 (ln J)^2 - mu ln J + mu/2 (tr C - 3).
//
// CalculateValue(STRAIN_ENERGY): the stored energy per unit reference volume of
// the strain the law would use (the element's, or F's): W = 1/2 E . D E (Voigt,
// engineering shears, so the shear terms count S_xy gamma_xy = 2 S_xy E_xy) for
// the Hooke / St. Venant-Kirchhoff laws, i.e. 1/2 S : E with the law's own S
// (plane strain: E_zz = 0 adds nothing; plane stress: S_zz = 0 does not), and
// the Neo-Hookean W above (plane strain: C_zz = 1, tr C = C_xx + C_yy + 1).
//
// Voigt order: xx, yy, zz, xy, yz, xz in 3D and xx, yy, xy in 2D, with
// engineering shear strains (gamma_xy = 2 E_xy), as in Kratos. The strain the
// laws use is the element's (strain_vector) when use_element_provided_strain is
// set, else the Green-Lagrange strain of deformation_gradient, written back to
// strain_vector. The tangent returned is always the material one, dS/dE.
// Material constants are read from the Properties at each call, so a change of
// YOUNG_MODULUS between steps takes effect.
#pragma once

#include <Eigen/Core>
#include <string>

#include "kernel/model/constitutive_law.h"

namespace tessera::structural {

// Lame constants and what they came from.
struct IsotropicConstants {
  double young, poisson, lambda, mu;
};

// Checks YOUNG_MODULUS > 0 and -1 < POISSON_RATIO < 0.5 (<= 0.5 excluded also in
// plane stress, where nu = 0.5 is finite but not a solid); names the law and
// properties in errors.
IsotropicConstants ReadIsotropicConstants(const Properties& properties, const std::string& law);

enum class ElasticModel { Linear, SaintVenantKirchhoff, NeoHookean };
enum class PlaneHypothesis { None, PlaneStrain, PlaneStress };

// One class for the seven laws: the dimension, plane hypothesis and model are
// fixed at construction, and each registered name is one configured prototype.
class ElasticLaw final : public ConstitutiveLaw {
 public:
  ElasticLaw(std::string name, ElasticModel model, int dimension, PlaneHypothesis plane);

  Pointer Clone() const override { return std::make_shared<ElasticLaw>(*this); }
  int WorkingSpaceDimension() const override { return dimension_; }
  int GetStrainSize() const override { return dimension_ == 3 ? 6 : 3; }

  void CalculateMaterialResponse(Parameters& values, StressMeasure measure) override;
  double& CalculateValue(Parameters& values, const Variable<double>& variable,
                         double& value) override;
  bool RequiresFinalizeMaterialResponse() const override { return false; }  // no state
  bool IsStateless() const override { return true; }
  int Check(const Properties& properties, const Geometry& geometry,
            const ProcessInfo& info) const override;
  std::string Info() const override { return name_; }

  ElasticModel Model() const { return model_; }

 private:
  template <int TDim>
  void Respond(Parameters& values, StressMeasure measure) const;
  template <int TDim>
  double StrainEnergy(Parameters& values) const;
  // The Green-Lagrange strain (Voigt): the element's, or that of F, written
  // back to values.strain_vector.
  template <int TDim>
  Eigen::Matrix<double, TDim == 3 ? 6 : 3, 1> Strain(Parameters& values) const;

  std::string name_;
  ElasticModel model_;
  int dimension_;
  PlaneHypothesis plane_;
};

// Registers the seven laws under their Kratos names.
void RegisterElasticLaws();

}  // namespace tessera::structural
