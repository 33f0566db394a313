// Small-strain J2 (von Mises) plasticity with isotropic hardening, Kratos'
// names SmallStrainJ2Plasticity3DLaw and SmallStrainJ2PlasticityPlaneStrain2DLaw
// (the plane-strain law works in 3D with eps_zz = 0 and returns the in-plane
// components, so the out-of-plane plastic strain is tracked exactly), and the
// plane-stress variant SmallStrainJ2PlasticityPlaneStress2DLaw: the 3D return
// mapping with eps_zz found by a local Newton iteration on sigma_zz = 0, the
// tangent statically condensed, D_ab - D_az D_zb / D_zz (consistent, since
// sigma_zz = 0 holds at the converged eps_zz).
//
// Additive split eps = eps_e + eps_p, sigma = lambda tr(eps_e) I + 2 mu eps_e,
// yield function f = |dev sigma| - sqrt(2/3) k(alpha) with the hardening law
//   k(alpha) = Y_inf + (Y_0 - Y_inf) exp(-delta alpha) + H alpha,
// Y_0 = YIELD_STRESS, H = ISOTROPIC_HARDENING_MODULUS (0 if absent),
// Y_inf = EXPONENTIAL_SATURATION_YIELD_STRESS (Y_0 if absent: linear hardening),
// delta = HARDENING_EXPONENT (0 if absent), and alpha the equivalent plastic
// strain (alpha = |eps_p| in uniaxial tension). Backward Euler with the radial
// return (Simo & Hughes, Computational Inelasticity, box 3.2): the consistency
// condition q_trial - 2 mu dgamma - sqrt(2/3) k(alpha_n + sqrt(2/3) dgamma) = 0
// is solved by Newton for dgamma, and the algorithmic tangent is
//   C = K 1 x 1 + 2 mu theta I_dev - 2 mu theta_bar n x n,
//   theta = 1 - 2 mu dgamma / q_trial,
//   theta_bar = 1 / (1 + k'/(3 mu)) - (1 - theta).
//
// The internal variables (eps_p, alpha) are those of the last converged step:
// CalculateMaterialResponse never changes them, FinalizeMaterialResponse
// (called by the elements at FinalizeSolutionStep) commits the return mapping
// of the given strain. Voigt order as the elastic laws (engineering shears).
//
// CalculateValue(STRAIN_ENERGY): the elastic stored energy per unit volume,
//   w_e = 1/2 (eps - eps_p) : C : (eps - eps_p) = 1/2 sigma : eps_e,
// with eps_p and sigma of the return mapping of the given strain from the
// committed state (the state whose stress CalculateMaterialResponse returns;
// plane stress: at the eps_zz with sigma_zz = 0). The plastic work
// int sigma : d eps_p (dissipation, and the part the hardening locks in) is
// not included: it is not recoverable elastic energy.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <string>

#include "constitutive/isotropic_hardening.h"
#include "kernel/model/constitutive_law.h"

namespace tessera::structural {

class SmallStrainJ2PlasticityLaw final : public ConstitutiveLaw, public PlasticInternalVariables {
 public:
  enum class Plane { None, Strain, Stress };
  SmallStrainJ2PlasticityLaw(std::string name, int dimension, Plane plane)
      : name_(std::move(name)), dimension_(dimension), plane_(plane) {}

  Pointer Clone() const override { return std::make_shared<SmallStrainJ2PlasticityLaw>(*this); }
  int WorkingSpaceDimension() const override { return dimension_; }
  int GetStrainSize() const override { return dimension_ == 3 ? 6 : 3; }

  void InitializeMaterial(const Properties&, const Geometry&, const Vector&) override;
  void ResetMaterial(const Properties&, const Geometry&, const Vector&) override;
  void CalculateMaterialResponse(Parameters& values, StressMeasure measure) override;
  double& CalculateValue(Parameters& values, const Variable<double>& variable,
                         double& value) override;
  void FinalizeMaterialResponse(Parameters& values, StressMeasure measure) override;
  int Check(const Properties& properties, const Geometry& geometry,
            const ProcessInfo& info) const override;
  std::string Info() const override { return name_; }

  double EquivalentPlasticStrain() const override { return alpha_; }
  Matrix PlasticStrainTensor() const override;

  // Checkpoint: the committed plastic strain (6) and alpha.
  void SaveState(std::vector<double>& out) const override {
    out.insert(out.end(), plastic_strain_.data(), plastic_strain_.data() + 6);
    out.push_back(alpha_);
  }
  void LoadState(std::span<const double>& state) override {
    TESSERA_CHECK(state.size() >= 7, Info(), ": the checkpoint state ends early");
    std::copy(state.begin(), state.begin() + 6, plastic_strain_.data());
    alpha_ = state[6];
    state = state.subspan(7);
  }

 private:
  using Voigt6 = Eigen::Matrix<double, 6, 1>;
  using Matrix6 = Eigen::Matrix<double, 6, 6>;
  struct Result {
    Voigt6 stress;    // tensor components xx, yy, zz, xy, yz, xz
    Matrix6 tangent;  // dsigma/deps, engineering shear strains
    Voigt6 plastic;   // eps_p, tensor components
    double alpha;
  };
  // Return mapping of the strain (engineering shears, 3D) from the committed state.
  Result ReturnMapping(const Properties& properties, const Voigt6& strain) const;
  Voigt6 Strain3D(const Parameters& values) const;
  // ReturnMapping of the values' strain; in plane stress with eps_zz iterated
  // to sigma_zz = 0. strain: the 3D strain used (engineering shears).
  Result Solve(const Parameters& values, Voigt6& strain) const;
  void Respond(Parameters& values, bool commit);

  std::string name_;
  int dimension_;
  Plane plane_;
  Voigt6 plastic_strain_ = Voigt6::Zero();  // committed eps_p, tensor components
  double alpha_ = 0.0;                      // committed equivalent plastic strain
};

// Registers SmallStrainJ2Plasticity3DLaw, SmallStrainJ2PlasticityPlaneStrain2DLaw and
// SmallStrainJ2PlasticityPlaneStress2DLaw.
void RegisterJ2PlasticityLaws();

}  // namespace tessera::structural
