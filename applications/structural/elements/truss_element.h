// TrussElement3D2N (Kratos' name): a two-node bar in 3D space, geometrically
// exact (total Lagrangian), with the axial Green-Lagrange strain
//   E = (l^2 - L^2) / (2 L^2),  l = |x2 - x1|, L = |X2 - X1|,
// the law's axial PK2 stress plus the properties' TRUSS_PRESTRESS_PK2,
//   S = S_law(E) + S_0,
// and the cross-section CROSS_AREA A of the reference configuration. With the
// stored energy A L psi(E) and d = x2 - x1:
//   f_int(node 2) = -f_int(node 1) = A S d / L,
//   K = [[k, -k], [-k, k]],  k = A E_t / L^3 d d^T + A S / L I,
// E_t = dS/dE from the law (material plus initial-stress stiffness). Local
// systems in residual form (RHS = f_ext - f_int), dofs DISPLACEMENT_X/Y/Z.
// Body force rho A L g / 2 per node (g: VOLUME_ACCELERATION of the properties
// plus the nodal one averaged); mass rho A L / 6 [[2, 1], [1, 2]] (consistent)
// or rho A L / 2 per node (lumped). Results on its one integration point:
// GREEN_LAGRANGE_STRAIN_VECTOR and PK2_STRESS_VECTOR (one component each, the
// prestress included), FORCE (the axial force A S l / L along the current axis),
// STRAIN_ENERGY (per unit reference volume: the law's psi(E) plus S_0 E, the
// energy whose derivative is the force above); CalculateStrainEnergy = A L times it.
//
// CableElement3D2N (Kratos' name): the same bar carrying tension only. Where
// S < 0 (compression) the cable is slack: no internal force, no stiffness and
// no stored energy (its mass and body force stay).
#pragma once

#include <string>

#include "elements/displacement_element_3d.h"
#include "elements/law_state.h"
#include "elements/strain_energy_provider.h"
#include "kernel/model/constitutive_law.h"

namespace tessera::structural {

class TrussElement3D2N : public DisplacementElement3D<2>, public StrainEnergyProvider {
 public:
  using DisplacementElement3D<2>::DisplacementElement3D;
  TESSERA_ELEMENT_CREATE(TrussElement3D2N, ::tessera::Element)

  void Initialize(const ProcessInfo& info) override;
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info) override;
  void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) override;
  void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) override;
  void CalculateMassMatrix(Matrix& mass, const ProcessInfo& info) override;
  void CalculateLumpedMassVector(Vector& mass, const ProcessInfo& info) const override;

  void CalculateOnIntegrationPoints(const Variable<Vector>& variable, std::vector<Vector>& out,
                                    const ProcessInfo& info) override;
  void CalculateOnIntegrationPoints(const Variable<Array3>& variable, std::vector<Array3>& out,
                                    const ProcessInfo& info) override;
  void CalculateOnIntegrationPoints(const Variable<double>& variable, std::vector<double>& out,
                                    const ProcessInfo& info) override;
  double CalculateStrainEnergy(const ProcessInfo& info) override;

  int Check(const ProcessInfo& info) const override;
  std::string Info() const override { return "TrussElement3D2N #" + std::to_string(Id()); }

  // Checkpoint: the law's internal variables.
  void SaveState(std::vector<double>& out) const override {
    SaveLawStates(law_ ? std::vector<ConstitutiveLaw::Pointer>{law_}
                       : std::vector<ConstitutiveLaw::Pointer>{},
                  out);
  }
  void LoadState(std::span<const double>& state, const ProcessInfo& info) override {
    if (!law_ || initialized_for_ != &GetProperties()) Initialize(info);
    std::vector<ConstitutiveLaw::Pointer> laws{law_};
    LoadLawStates(laws, state, Info());
  }

 protected:
  // A cable: compression leaves it slack (stress and tangent zero).
  virtual bool TensionOnly() const { return false; }

 private:
  struct State {
    Eigen::Vector3d d;  // x2 - x1
    double length0;     // L
    double strain;      // E
    double stress;      // S (prestress included)
    double tangent;     // dS/dE
    bool slack;         // a cable in compression: no stress, no stiffness, no energy
  };
  State Evaluate(const ProcessInfo& info, bool tangent);
  double StrainEnergyDensity(const ProcessInfo& info);
  void CalculateAll(Matrix* lhs, Vector* rhs, const ProcessInfo& info);
  double MassPerNode() const;  // rho A L / 2

  ConstitutiveLaw::Pointer law_;
  const Properties* initialized_for_ = nullptr;
};

class CableElement3D2N final : public TrussElement3D2N {
 public:
  using TrussElement3D2N::TrussElement3D2N;
  TESSERA_ELEMENT_CREATE(CableElement3D2N, ::tessera::Element)
  std::string Info() const override { return "CableElement3D2N #" + std::to_string(Id()); }

 protected:
  bool TensionOnly() const override { return true; }
};

}  // namespace tessera::structural
