// MembraneElement3D3N / 3D4N, also read under the older Kratos names
// PreStressMembraneElement3D3N / 3D4N: a total-Lagrangian membrane (plane
// stress, no bending) on a triangle or quadrilateral in 3D space.
//
// At each Gauss point of the reference surface, with the covariant vectors
// G_alpha = dX/dxi_alpha, an orthonormal in-plane basis e1 = G1/|G1|,
// e2 = n x e1 (n the unit normal) gives local Cartesian coordinates Y and the
// reference gradients dN_a/dY. The surface deformation gradient is the 3x2
//   F = sum_a x_a (dN_a/dY)^T,   C = F^T F,   E = (C - I) / 2
// (Voigt E11, E22, 2 E12). The in-plane law (a 2D plane-stress law, e.g.
// LinearElasticPlaneStress2DLaw: S = D E, i.e. St. Venant-Kirchhoff) gives
// the PK2 stress, to which the properties' PRESTRESS_VECTOR (S11, S22, S12,
// in the local basis) is added. With the reference thickness t = THICKNESS:
//   f_int = int t B^T S dA,   K = int t (B^T D B + (dN_a . S . dN_b) I) dA,
// B's columns (node a, direction i): (F_i1 N_a,1, F_i2 N_a,2,
// F_i1 N_a,2 + F_i2 N_a,1). Local systems in residual form.
//
// Only an isotropic prestress (S11 = S22, S12 = 0) is accepted: it is the
// same in every in-plane basis, whereas an anisotropic one needs the
// prestress axes (Kratos' projection settings), which are not supported yet.
// The law receives the 2x2 in-plane stretch Q^T F (Q: an orthonormal basis of
// the current tangent plane), whose C is the membrane's.
//
// STRAIN_ENERGY per Gauss point (per unit reference volume): the law's stored
// energy plus the prestress' S_0 . E (whose derivative is the prestress'
// internal force); CalculateStrainEnergy integrates it times t dA.
#pragma once

#include <string>
#include <vector>

#include "elements/displacement_element_3d.h"
#include "elements/law_state.h"
#include "elements/strain_energy_provider.h"
#include "kernel/model/constitutive_law.h"

namespace tessera::structural {

template <int TNodes>
class MembraneElement final : public DisplacementElement3D<TNodes>, public StrainEnergyProvider {
  using Base = DisplacementElement3D<TNodes>;

 public:
  using typename Base::LocalMatrix;
  using typename Base::LocalVector;
  using typename Base::Positions;
  using ShapeValues = Eigen::Matrix<double, TNodes, 1>;
  using Gradients = Eigen::Matrix<double, TNodes, 2>;  // dN_a / dY_alpha
  using BMatrix = Eigen::Matrix<double, 3, Base::kDofs>;

  using Base::Base;
  TESSERA_ELEMENT_CREATE(MembraneElement, ::tessera::Element)

  void Initialize(const ProcessInfo& info) override;
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info) override;
  void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) override;
  void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) override;
  void CalculateMassMatrix(Matrix& mass, const ProcessInfo& info) override;
  // Row sums of the consistent mass, rho t int N_a dA0 per node and direction
  // (explicit dynamics); after Initialize.
  void CalculateLumpedMassVector(Vector& mass, const ProcessInfo& info) const override;

  // GREEN_LAGRANGE_STRAIN_VECTOR, PK2_STRESS_VECTOR (local basis, prestress
  // included) per Gauss point.
  void CalculateOnIntegrationPoints(const Variable<Vector>& variable, std::vector<Vector>& out,
                                    const ProcessInfo& info) override;
  void CalculateOnIntegrationPoints(const Variable<double>& variable, std::vector<double>& out,
                                    const ProcessInfo& info) override;
  double CalculateStrainEnergy(const ProcessInfo& info) override;

  int Check(const ProcessInfo& info) const override;

  // Checkpoint: the laws' internal variables.
  void SaveState(std::vector<double>& out) const override { SaveLawStates(laws_, out); }
  void LoadState(std::span<const double>& state, const ProcessInfo& info) override {
    if (laws_.empty() || initialized_for_ != &this->GetProperties()) Initialize(info);
    LoadLawStates(laws_, state, Info());
  }

  std::string Info() const override {
    return "MembraneElement3D" + std::to_string(TNodes) + "N #" + std::to_string(this->Id());
  }

 private:
  struct GaussPoint {
    ShapeValues N;
    Gradients dN_dY;
    double weight;  // integration weight x reference area density
  };
  template <class Fn>
  void ForEachMaterialPoint(const ProcessInfo& info, bool tangent, Fn&& fn);
  // fn(p, gp, w): the stored energy per unit reference volume at each Gauss point.
  template <class Fn>
  void ForEachStrainEnergyDensity(const ProcessInfo& info, Fn&& fn);
  void CalculateAll(Matrix* lhs, Vector* rhs, const ProcessInfo& info);
  double Thickness() const;
  Eigen::Vector3d Prestress() const;

  std::vector<GaussPoint> gauss_points_;
  std::vector<ConstitutiveLaw::Pointer> laws_;
  const Properties* initialized_for_ = nullptr;
};

using MembraneElement3D3N = MembraneElement<3>;
using MembraneElement3D4N = MembraneElement<4>;

}  // namespace tessera::structural
