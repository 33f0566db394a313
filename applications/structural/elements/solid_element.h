// SolidElement: what the displacement-based solid elements share — dofs
// (DISPLACEMENT_X/Y[/Z] per node), Gauss points of the reference configuration,
// one constitutive law per Gauss point (the properties' own, shared, when the
// law is stateless), body force, mass, and results at the
// integration points — over a formulation (TDerived, CRTP) that supplies the
// kinematics at a Gauss point: the strain (Voigt), the deformation gradient and
// the B matrix (d strain / d nodal displacements).
//
// Sizes are compile-time (TDim, TNodes), so every per-Gauss-point quantity is a
// fixed-size Eigen object on the stack; J^-1 and the weights w det J0 are
// computed once (Initialize), the reference gradients rebuilt from them. The
// law's input and output buffers are thread_local and keep their size between
// calls, so an assembly allocates nothing per Gauss point.
//
// Local systems are in residual form (Kratos' convention): LHS = tangent K,
// RHS = f_ext - f_int. 2D elements multiply by THICKNESS (1 when absent).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "elements/law_state.h"
#include "elements/strain_energy_provider.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/model/constitutive_law.h"
#include "kernel/model/element.h"

namespace tessera::structural {

template <class TDerived, int TDim, int TNodes>
class SolidElement : public Element, public StrainEnergyProvider {
 public:
  static constexpr int kDim = TDim;
  static constexpr int kNodes = TNodes;
  static constexpr int kDofs = TDim * TNodes;
  static constexpr int kStrain = TDim == 3 ? 6 : 3;

  using ShapeValues = Eigen::Matrix<double, TNodes, 1>;
  using Gradients = Eigen::Matrix<double, TNodes, TDim>;    // dN_a / dX_j
  using NodalValues = Eigen::Matrix<double, TNodes, TDim>;  // u_a,i
  using Tensor = Eigen::Matrix<double, TDim, TDim>;
  using StrainVector = Eigen::Matrix<double, kStrain, 1>;
  using BMatrix = Eigen::Matrix<double, kStrain, kDofs>;
  using VoigtMatrix = Eigen::Matrix<double, kStrain, kStrain>;
  using LocalMatrix = Eigen::Matrix<double, kDofs, kDofs>;
  using LocalVector = Eigen::Matrix<double, kDofs, 1>;

  // The shape functions and their local gradients depend on the point's local
  // coordinates only: one table per geometry type and integration order,
  // shared by all the elements (SharedReferencePoints). An element keeps
  // nothing per point until it is evaluated repeatedly: each use computes
  // J^-1 and det J of the reference configuration from the nodes' initial
  // coordinates (GeometryType::InverseJacobian, as Initialize does to check
  // them) and rebuilds dN/dX = dN/dxi J^-1 by the arithmetic of
  // GeometryType::GlobalGradients (that of the geometry's
  // ShapeFunctionsGradients): the same bits as kept ones. An element
  // evaluated more than kRebuildsBeforeKeeping times (explicit steps, Newton
  // iterations) keeps the rebuilt points (208 bytes a hexahedron's point),
  // since rebuilding each time would cost its steps (an InverseJacobian is
  // ~1,000 instructions a point); a linear static solve (the system, the
  // reactions, one output) never does, so its model holds no per-point data
  // (a hexahedron 640 bytes smaller than with J^-1 and the weight kept).
  static constexpr int kRebuildsBeforeKeeping = 3;
  struct ReferencePoint {
    ShapeValues N;     // N_a
    Gradients dN_dxi;  // dN_a / dxi_j
  };
  // A point as the formulations use it, rebuilt from the nodes (Point), or
  // kept (kept_).
  struct GaussPoint {
    Gradients dN_dX;           // reference configuration
    double weight;             // integration weight x det J0 (thickness applied at use)
    const ShapeValues* shape;  // N_a at the point (the shared table's row)
    const ShapeValues& N() const { return *shape; }
  };
  struct Kinematics {
    StrainVector strain;  // small strain, or Green-Lagrange
    Tensor F;             // deformation gradient (the law's input)
    double det_F;
    BMatrix B;
  };

  using Element::Element;

  // ---- dofs
  void EquationIdVector(std::vector<IdType>& ids, const ProcessInfo& info) const override;
  void GetDofList(std::vector<DofReference>& dofs, const ProcessInfo& info) const override;
  void GetValuesVector(Vector& values, int step = 0) const override;
  void GetFirstDerivativesVector(Vector& values, int step = 0) const override;
  void GetSecondDerivativesVector(Vector& values, int step = 0) const override;

  // ---- set-up: Gauss points (order INTEGRATION_ORDER of the properties, else
  // the geometry's default) and a clone of the properties' law per point
  // (the law itself, shared, when it IsStateless()).
  void Initialize(const ProcessInfo& info) override;

  // Commits the laws' internal variables (plasticity) at the converged state.
  void FinalizeSolutionStep(const ProcessInfo& info) override;

  // ---- local systems
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info) override;
  void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) override;
  void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) override;
  // Consistent mass int rho N_a N_b dV0, exact for every geometry (simplices
  // use the closed form, whatever their stiffness quadrature); lumped by row
  // sums when the process info's COMPUTE_LUMPED_MASS_MATRIX is set.
  void CalculateMassMatrix(Matrix& mass, const ProcessInfo& info) override;
  void CalculateLumpedMassVector(Vector& mass, const ProcessInfo& info) const override;
  // Rayleigh damping alpha M + beta K (RAYLEIGH_ALPHA/BETA of the properties,
  // else of the process info, as Kratos); empty when both are zero.
  void CalculateDampingMatrix(Matrix& damping, const ProcessInfo& info) override;

  // ---- results per Gauss point: STRAIN_VECTOR, GREEN_LAGRANGE_STRAIN_VECTOR,
  // STRESS_VECTOR, PK2_STRESS_VECTOR, CAUCHY_STRESS_VECTOR (Vector);
  // VON_MISES_STRESS (double, of the Cauchy stress; in 2D with sigma_zz = 0 as
  // Kratos), EQUIVALENT_PLASTIC_STRAIN (double, plastic laws), STRAIN_ENERGY
  // (double, the law's stored energy per unit reference volume; a law without
  // it throws naming itself);
  // CONSTITUTIVE_MATRIX, DEFORMATION_GRADIENT and the *_TENSOR variables
  // (Matrix; PLASTIC_STRAIN_TENSOR 3 x 3, plastic laws). Other variables, and
  // the plastic ones for laws without plasticity, give an empty list.
  void CalculateOnIntegrationPoints(const Variable<double>& variable, std::vector<double>& out,
                                    const ProcessInfo& info) override;
  void CalculateOnIntegrationPoints(const Variable<Vector>& variable, std::vector<Vector>& out,
                                    const ProcessInfo& info) override;
  void CalculateOnIntegrationPoints(const Variable<Matrix>& variable, std::vector<Matrix>& out,
                                    const ProcessInfo& info) override;

  // sum over the Gauss points of STRAIN_ENERGY x w det J0 (x THICKNESS in 2D).
  double CalculateStrainEnergy(const ProcessInfo& info) override;

  int Check(const ProcessInfo& info) const override;
  std::string Info() const override {
    return std::string(TDerived::Name()) + " #" + std::to_string(Id());
  }

  std::size_t NumberOfGaussPoints() const { return n_points_; }

  // Checkpoint: the laws' internal variables (none for a shared stateless law,
  // whose elements keep no per-point laws).
  void SaveState(std::vector<double>& out) const override { SaveLawStates(laws_, out); }
  void LoadState(std::span<const double>& state, const ProcessInfo& info) override {
    EnsureInitialized(info);
    LoadLawStates(laws_, state, Info());
  }

 protected:
  // B for the given deformation gradient: rows d(strain)/d(u_a,i) =
  // sym(F^T grad(N_a e_i)); F = I gives the small-strain B.
  static void FillB(const Gradients& dN, const Tensor& F, BMatrix& B);
  static StrainVector GreenLagrange(const Tensor& F);

 private:
  void EnsureInitialized(const ProcessInfo& info);
  void CalculateAll(Matrix* lhs, Vector* rhs, const ProcessInfo& info);
  NodalValues Displacements() const;
  double Thickness() const;
  // fn(p, gp, k, cl, law) at every Gauss point, with the law's input (the
  // kinematics k) set in cl: what the two loops below share.
  template <class Fn>
  void ForEachLawPoint(const ProcessInfo& info, bool stress, bool tangent, Fn&& fn);
  // Law response at every Gauss point (stress measure PK2, material tangent).
  template <class Fn>
  void ForEachMaterialPoint(const ProcessInfo& info, bool tangent, Fn&& fn);
  // fn(p, gp, w): the law's STRAIN_ENERGY w at every Gauss point (no stress).
  template <class Fn>
  void ForEachStrainEnergyDensity(const ProcessInfo& info, Fn&& fn);

  // Every point of this evaluation: the kept ones, or rebuilt into a list of
  // the calling thread's (valid until its next call); counts the rebuilds.
  const GaussPoint* Points();
  // Point p from the nodes' initial coordinates X (Geometry::InitialPoints).
  GaussPoint Point(std::span<const Array3> X, std::size_t p) const;
  // The integration weight x det J0 of point p (the mass, the simplex volume).
  double Weight(std::span<const Array3> X, std::size_t p) const;
  // The law at point p: the shared one, or the point's own.
  ConstitutiveLaw& LawAt(std::size_t p) const { return shared_law_ ? *shared_law_ : *laws_[p]; }

  std::vector<GaussPoint> kept_;               // every point rebuilt, once evaluated repeatedly
  int rebuilds_ = 0;                           // evaluations that rebuilt the points
  const ReferencePoint* reference_ = nullptr;  // the shared table's rows, one per point
  const std::vector<IntegrationPoint>* quadrature_ = nullptr;  // the type's rule, one per point
  std::uint32_t n_points_ = 0;                                 // 0: not initialised
  std::vector<ConstitutiveLaw::Pointer> laws_;  // one per Gauss point; none when stateless
  ConstitutiveLaw::Pointer shared_law_;         // the properties' law, when stateless
  const Properties* initialized_for_ = nullptr;
  bool finalize_laws_ = true;  // some law has internal variables to commit
};

}  // namespace tessera::structural
