// Finite-strain J2 (von Mises) plasticity with isotropic hardening, Kratos'
// names HyperElasticPlasticJ23DLaw and HyperElasticPlasticJ2PlaneStrain2DLaw
// (thesis section 4.2.3, eqs. 4.40-4.42; the model and algorithm are Simo's,
// Simo & Hughes, Computational Inelasticity, ch. 9, boxes 9.1-9.2).
//
// Multiplicative split F = Fe Fp, plastic incompressibility det Fp = 1, and a
// decoupled Neo-Hookean-type stored energy of the elastic left Cauchy-Green
// tensor be = Fe Fe^T, with J = det F and the isochoric bbe = J^-2/3 be:
//   W = kappa/2 [ (J^2 - 1)/2 - ln J ] + mu/2 (tr bbe - 3),
//   tau = kappa/2 (J^2 - 1) 1 + mu dev(bbe)            (Kirchhoff stress),
// yield f = |dev tau| - sqrt(2/3) k(alpha) (von Mises, eq. 4.42, whose printed
// sqrt(3/2 J_2) is read as the von Mises stress sigma_c = sqrt(3 J_2) =
// sqrt(3/2 s:s)), k(alpha) of isotropic_hardening.h.
//
// Return mapping (box 9.1) in the reference configuration: the internal
// variable is P = Cp^-1 = Fp^-1 Fp^-T, so that be = F P F^T; with C = F^T F,
//   T1 = tr(C P) = J^2/3 tr(bbe_trial),  T2 = tr(C P C P),
//   Ibar = J^-2/3 T1 / 3,  mubar = mu Ibar,
//   |s_trial| = mu J^-2/3 sqrt(T2 - T1^2/3),
//   radial return: |s_trial| - 2 mubar dgamma - sqrt(2/3) k(alpha_n + sqrt(2/3) dgamma) = 0,
//   theta = 1 - 2 mubar dgamma / |s_trial|,  s = theta s_trial,
//   S = F^-1 tau F^-T = a C^-1 + phi P,  phi = mu J^-2/3 theta,
//   a = kappa/2 (J^2 - 1) - phi T1 / 3.
// The update of be (box 9.1 step 5): bbe = s/mu + x 1 with x fixed by
// det bbe = 1 (Simo & Hughes' remark: this keeps det Fp = 1 exactly, where
// x = Ibar alone drifts); pulled back, P_n+1 = theta (P - T1/3 C^-1) + y C^-1,
// y = J^2/3 x the root of det(C P_n+1) = J^2, a cubic solved by Newton.
// The algorithmic tangent is CC = 2 dS/dC of the map above (the pull-back of
// Simo's box 9.2), derived in the .cpp; TL elements get PK2 and dS/dE.
//
// Since everything depends on F through C alone, a superposed rigid rotation
// leaves S, P and alpha unchanged (objectivity by construction). The plane
// strain law uses C_zz = 1 and returns the in-plane components.
//
// The internal variables (P, alpha) are those of the last converged step:
// CalculateMaterialResponse never changes them, FinalizeMaterialResponse
// (FinalizeSolutionStep) commits the return mapping of the given strain.
//
// CalculateValue(STRAIN_ENERGY): the elastic stored energy per unit reference
// volume, the W above at the returned state,
//   W = kappa/2 [ (J^2 - 1)/2 - ln J ] + mu/2 (J^-2/3 tr(C P_n+1) - 3),
// tr bbe_n+1 = J^-2/3 tr(C P_n+1), with P_n+1 the update of the return mapping
// of the given strain from the committed state (P_n+1 = P elastically), so
// that it is the energy whose Kirchhoff stress CalculateMaterialResponse gives.
// The plastic work (dissipation, and what the hardening locks in) is not
// included.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <string>

#include "constitutive/isotropic_hardening.h"
#include "kernel/model/constitutive_law.h"

namespace tessera::structural {

class HyperElasticPlasticJ2Law final : public ConstitutiveLaw, public PlasticInternalVariables {
 public:
  HyperElasticPlasticJ2Law(std::string name, int dimension)
      : name_(std::move(name)), dimension_(dimension) {}

  Pointer Clone() const override { return std::make_shared<HyperElasticPlasticJ2Law>(*this); }
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
  // E_p = (Cp - I) / 2; det(I + 2 E_p) = (det Fp)^2.
  Matrix PlasticStrainTensor() const override;

  // Checkpoint: the committed plastic metric (9, column-major) and alpha.
  void SaveState(std::vector<double>& out) const override {
    out.insert(out.end(), plastic_metric_.data(), plastic_metric_.data() + 9);
    out.push_back(alpha_);
  }
  void LoadState(std::span<const double>& state) override {
    TESSERA_CHECK(state.size() >= 10, Info(), ": the checkpoint state ends early");
    std::copy(state.begin(), state.begin() + 9, plastic_metric_.data());
    alpha_ = state[9];
    state = state.subspan(10);
  }

 private:
  using Tensor3 = Eigen::Matrix3d;
  using Voigt6 = Eigen::Matrix<double, 6, 1>;
  using Matrix6 = Eigen::Matrix<double, 6, 6>;
  struct Result {
    Tensor3 S;        // PK2
    Matrix6 tangent;  // dS/dE, engineering shear strains
    Tensor3 plastic;  // P_n+1 = Cp^-1 (only when asked)
    double alpha;
  };
  Result ReturnMapping(const Properties& properties, const Tensor3& C, bool tangent,
                       bool update) const;
  Tensor3 RightCauchyGreen(Parameters& values) const;
  void Respond(Parameters& values, StressMeasure measure, bool commit);

  std::string name_;
  int dimension_;
  Tensor3 plastic_metric_ = Tensor3::Identity();  // committed P = Cp^-1
  double alpha_ = 0.0;                            // committed equivalent plastic strain
};

// Registers HyperElasticPlasticJ23DLaw and HyperElasticPlasticJ2PlaneStrain2DLaw.
void RegisterHyperElasticPlasticJ2Laws();

}  // namespace tessera::structural
