// The solid elements: SolidElement's shared machinery, the element names, and
// the explicit instantiations for the four geometries (Triangle2D3,
// Quadrilateral2D4, Tetrahedra3D4, Hexahedra3D8) of both formulations.
#include <cmath>
#include <map>
#include <mutex>
#include <span>
#include <utility>

#include "constitutive/isotropic_hardening.h"
#include "elements/properties_law.h"
#include "elements/small_displacement_element.h"
#include "elements/total_lagrangian_element.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/geometries/geometry_type.h"
#include "structural_variables.h"

namespace tessera::structural {
namespace {

constexpr const Variable<double>* kDisplacementComponents[3] = {&DISPLACEMENT_X, &DISPLACEMENT_Y,
                                                                &DISPLACEMENT_Z};

// The reusable law input/output of one thread (one per element instantiation,
// so the buffers keep their sizes).
template <int TDim, int TNodes>
ConstitutiveLaw::Parameters& ThreadLawParameters() {
  static thread_local ConstitutiveLaw::Parameters parameters;
  return parameters;
}

// Symmetric tensor of a Voigt stress (shears as they are).
template <int TDim, class S>
Eigen::Matrix<double, TDim, TDim> StressTensor(const S& s) {
  Eigen::Matrix<double, TDim, TDim> t;
  for (int i = 0; i < TDim; ++i) t(i, i) = s[i];
  if constexpr (TDim == 3) {
    t(0, 1) = t(1, 0) = s[3];
    t(1, 2) = t(2, 1) = s[4];
    t(0, 2) = t(2, 0) = s[5];
  } else {
    t(0, 1) = t(1, 0) = s[2];
  }
  return t;
}

// The shape function values and local gradients at the integration points of
// `order` on `type`: one table per (type, order) and element size, built on
// first use and kept for the run (a handful of tables), so the elements share
// it. Initialize runs in parallel: the look-up is locked; the tables never
// move once built.
template <class TReferencePoint, int TNodes, int TDim>
const TReferencePoint* SharedReferencePoints(const GeometryType& type, int order) {
  static std::mutex mutex;
  static std::map<std::pair<const GeometryType*, int>, std::vector<TReferencePoint>> tables;
  const std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = tables.try_emplace({&type, order});
  if (inserted) {  // filled once, never resized: the rows' addresses stay valid
    const auto& points = type.IntegrationPoints(order);
    it->second.resize(points.size());
    Matrix dN_dxi;
    for (std::size_t p = 0; p < points.size(); ++p) {
      type.ShapeFunctionsValues(points[p].local, it->second[p].N.data());
      type.ShapeFunctionsLocalGradients(points[p].local, dN_dxi);
      it->second[p].dN_dxi = dN_dxi.topLeftCorner<TNodes, TDim>();
    }
  }
  return it->second.data();
}

}  // namespace

// ---------------------------------------------------------------------------- dofs

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::EquationIdVector(std::vector<IdType>& ids,
                                                            const ProcessInfo&) const {
  const Geometry& g = GetGeometry();
  NodalDatabase& db = *g.Database();
  ids.resize(kDofs);
  for (int a = 0; a < TNodes; ++a)
    for (int i = 0; i < TDim; ++i)
      ids[a * TDim + i] = db.EquationId(*kDisplacementComponents[i], g.NodeIndex(a));
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::GetDofList(std::vector<DofReference>& dofs,
                                                      const ProcessInfo&) const {
  const Geometry& g = GetGeometry();
  dofs.resize(kDofs);
  for (int a = 0; a < TNodes; ++a)
    for (int i = 0; i < TDim; ++i)
      dofs[a * TDim + i] = {g.NodeIndex(a), kDisplacementComponents[i]};
}

namespace {
template <int TDim>
void GatherNodal(const Geometry& g, const Variable<Array3>& variable, int step, Vector& values) {
  values.setZero(static_cast<Eigen::Index>(g.size() * TDim));
  NodalDatabase& db = *g.Database();
  if (!db.HasHistoricalVariable(variable)) return;
  auto& column = db.HistoricalColumn(variable, step);
  for (std::size_t a = 0; a < g.size(); ++a)
    for (int i = 0; i < TDim; ++i) values[a * TDim + i] = column[g.NodeIndex(a)][i];
}
}  // namespace

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::GetValuesVector(Vector& values, int step) const {
  GatherNodal<TDim>(GetGeometry(), DISPLACEMENT, step, values);
}
template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::GetFirstDerivativesVector(Vector& values,
                                                                     int step) const {
  GatherNodal<TDim>(GetGeometry(), VELOCITY, step, values);
}
template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::GetSecondDerivativesVector(Vector& values,
                                                                      int step) const {
  GatherNodal<TDim>(GetGeometry(), ACCELERATION, step, values);
}

// ---------------------------------------------------------------------------- set-up

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::Initialize(const ProcessInfo&) {
  const Geometry& g = GetGeometry();
  const GeometryType& type = g.Type();
  if (!HasProperties()) TESSERA_ERROR(Info(), ": has no properties");
  const Properties& properties = GetProperties();
  int order = type.DefaultIntegrationOrder();
  if (properties.Has(INTEGRATION_ORDER) && properties.GetValue(INTEGRATION_ORDER) > 0)
    order = properties.GetValue(INTEGRATION_ORDER);
  const auto& points = type.IntegrationPoints(order);
  const auto X = g.InitialPoints();
  const std::span<const Array3> X_span(X.data(), X.size());
  std::vector<GaussPoint>().swap(kept_);
  rebuilds_ = 0;
  reference_ = SharedReferencePoints<ReferencePoint, TNodes, TDim>(type, order);
  quadrature_ = &points;
  n_points_ = static_cast<std::uint32_t>(points.size());
  // Checked here, computed again at each use (Point).
  for (std::size_t p = 0; p < points.size(); ++p) {
    double J_inv[3][3];
    const double det_j = type.InverseJacobian(X_span, points[p].local, J_inv);
    if (!(det_j > 0.0))
      TESSERA_ERROR(Info(), ": det J = ", det_j, " at Gauss point ", p,
                    " of the reference configuration; the nodes are ordered clockwise or the "
                    "element is degenerate");
  }
  const ConstitutiveLaw::Pointer& prototype = PropertiesLaw(*this);
  // A stateless law is shared, not cloned: the per-point clones were scattered
  // over the heap and loading each one's vtable cost ~10 % of an explicit step;
  // the element then keeps no per-point law at all.
  shared_law_ = prototype->IsStateless() ? prototype : nullptr;
  laws_.clear();
  finalize_laws_ = false;
  if (!shared_law_) {
    laws_.resize(points.size());
    Vector N(TNodes);
    for (std::size_t p = 0; p < points.size(); ++p) {
      laws_[p] = prototype->Clone();
      N = reference_[p].N;
      laws_[p]->InitializeMaterial(properties, g, N);
      finalize_laws_ = finalize_laws_ || laws_[p]->RequiresFinalizeMaterialResponse();
    }
  }
  laws_.shrink_to_fit();
  initialized_for_ = &properties;
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::EnsureInitialized(const ProcessInfo& info) {
  // A script may compute before Initialize, or swap the properties afterwards.
  if (n_points_ == 0 || initialized_for_ != &GetProperties()) Initialize(info);
}

template <class TDerived, int TDim, int TNodes>
typename SolidElement<TDerived, TDim, TNodes>::GaussPoint
SolidElement<TDerived, TDim, TNodes>::Point(std::span<const Array3> X, std::size_t p) const {
  double J_inv[3][3];
  const double det_j = GetGeometry().Type().InverseJacobian(X, (*quadrature_)[p].local, J_inv);
  GaussPoint gp;
  const auto inverse = [&](int j, int i) { return J_inv[j][i]; };
  GeometryType::GlobalGradients(TNodes, TDim, reference_[p].dN_dxi, inverse, gp.dN_dX);
  gp.weight = (*quadrature_)[p].weight * det_j;
  gp.shape = &reference_[p].N;
  return gp;
}

template <class TDerived, int TDim, int TNodes>
const typename SolidElement<TDerived, TDim, TNodes>::GaussPoint*
SolidElement<TDerived, TDim, TNodes>::Points() {
  if (!kept_.empty()) return kept_.data();
  const auto X = GetGeometry().InitialPoints();
  const std::span<const Array3> X_span(X.data(), X.size());
  if (++rebuilds_ > kRebuildsBeforeKeeping) {
    kept_.resize(n_points_);
    for (std::size_t p = 0; p < n_points_; ++p) kept_[p] = Point(X_span, p);
    return kept_.data();
  }
  // One list per thread, grown once: the points of the element being evaluated.
  thread_local std::vector<GaussPoint> rebuilt;
  rebuilt.resize(n_points_);
  for (std::size_t p = 0; p < n_points_; ++p) rebuilt[p] = Point(X_span, p);
  return rebuilt.data();
}

template <class TDerived, int TDim, int TNodes>
double SolidElement<TDerived, TDim, TNodes>::Weight(std::span<const Array3> X,
                                                    std::size_t p) const {
  double J_inv[3][3];
  return (*quadrature_)[p].weight *
         GetGeometry().Type().InverseJacobian(X, (*quadrature_)[p].local, J_inv);
}

template <class TDerived, int TDim, int TNodes>
typename SolidElement<TDerived, TDim, TNodes>::NodalValues
SolidElement<TDerived, TDim, TNodes>::Displacements() const {
  const Geometry& g = GetGeometry();
  auto& column = g.Database()->HistoricalColumn(DISPLACEMENT);
  NodalValues u;
  for (int a = 0; a < TNodes; ++a) {
    const Array3& v = column[g.NodeIndex(a)];
    for (int i = 0; i < TDim; ++i) u(a, i) = v[i];
  }
  return u;
}

template <class TDerived, int TDim, int TNodes>
double SolidElement<TDerived, TDim, TNodes>::Thickness() const {
  if constexpr (TDim == 2) {
    const Properties& p = GetProperties();
    return p.Has(THICKNESS) ? p.GetValue(THICKNESS) : 1.0;
  }
  return 1.0;
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::FillB(const Gradients& dN, const Tensor& F, BMatrix& B) {
  for (int a = 0; a < TNodes; ++a)
    for (int i = 0; i < TDim; ++i) {
      const int c = a * TDim + i;
      for (int j = 0; j < TDim; ++j) B(j, c) = F(i, j) * dN(a, j);
      if constexpr (TDim == 3) {
        B(3, c) = F(i, 0) * dN(a, 1) + F(i, 1) * dN(a, 0);
        B(4, c) = F(i, 1) * dN(a, 2) + F(i, 2) * dN(a, 1);
        B(5, c) = F(i, 0) * dN(a, 2) + F(i, 2) * dN(a, 0);
      } else {
        B(2, c) = F(i, 0) * dN(a, 1) + F(i, 1) * dN(a, 0);
      }
    }
}

template <class TDerived, int TDim, int TNodes>
typename SolidElement<TDerived, TDim, TNodes>::StrainVector
SolidElement<TDerived, TDim, TNodes>::GreenLagrange(const Tensor& F) {
  const Tensor E = 0.5 * (F.transpose() * F - Tensor::Identity());
  StrainVector e;
  for (int I = 0; I < TDim; ++I) e[I] = E(I, I);
  if constexpr (TDim == 3) {
    e[3] = 2.0 * E(0, 1);
    e[4] = 2.0 * E(1, 2);
    e[5] = 2.0 * E(0, 2);
  } else {
    e[2] = 2.0 * E(0, 1);
  }
  return e;
}

// ---------------------------------------------------------------------------- material points

template <class TDerived, int TDim, int TNodes>
template <class Fn>
void SolidElement<TDerived, TDim, TNodes>::ForEachLawPoint(const ProcessInfo& info, bool stress,
                                                           bool tangent, Fn&& fn) {
  EnsureInitialized(info);
  const NodalValues u = Displacements();
  ConstitutiveLaw::Parameters& cl = ThreadLawParameters<TDim, TNodes>();
  cl.properties = &GetProperties();
  cl.process_info = &info;
  cl.geometry = &GetGeometry();
  cl.use_element_provided_strain = true;
  cl.compute_stress = stress;
  cl.compute_constitutive_tensor = tangent;
  cl.number_of_nodes = TNodes;
  cl.dimension = TDim;
  Kinematics k;
  const GaussPoint* points = Points();
  for (std::size_t p = 0; p < n_points_; ++p) {
    const GaussPoint& gp = points[p];
    TDerived::ComputeKinematics(gp, u, k, /*with_b=*/tangent);
    if (!(k.det_F > 0.0))
      TESSERA_ERROR(Info(), ": det F = ", k.det_F, " at Gauss point ", p,
                    " (the element is inverted by the current displacements)");
    cl.shape_functions = gp.N().data();
    cl.shape_functions_derivatives = gp.dN_dX.data();
    cl.strain_vector = k.strain;
    cl.deformation_gradient = k.F;
    cl.determinant_f = k.det_F;
    fn(p, gp, k, cl, LawAt(p));
  }
}

template <class TDerived, int TDim, int TNodes>
template <class Fn>
void SolidElement<TDerived, TDim, TNodes>::ForEachMaterialPoint(const ProcessInfo& info,
                                                                bool tangent, Fn&& fn) {
  ForEachLawPoint(
      info, /*stress=*/true, tangent,
      [&](std::size_t p, const GaussPoint& gp, const Kinematics& k, ConstitutiveLaw::Parameters& cl,
          ConstitutiveLaw& law) {
        law.CalculateMaterialResponse(cl, ConstitutiveLaw::StressMeasure::PK2);
        if (cl.stress_vector.size() != kStrain ||
            (tangent && (cl.constitutive_matrix.rows() != kStrain ||
                         cl.constitutive_matrix.cols() != kStrain)))
          TESSERA_ERROR(Info(), ": law ", law.Info(), " returned ", cl.stress_vector.size(),
                        " stress components for ", kStrain, " (a law of another dimension?)");
        const Eigen::Map<const StrainVector> S(cl.stress_vector.data());
        using Tangent = Eigen::Matrix<double, kStrain, kStrain, Eigen::RowMajor>;
        const Eigen::Map<const Tangent> D(tangent ? cl.constitutive_matrix.data() : nullptr);
        fn(p, gp, k, S, D);
      });
}

template <class TDerived, int TDim, int TNodes>
template <class Fn>
void SolidElement<TDerived, TDim, TNodes>::ForEachStrainEnergyDensity(const ProcessInfo& info,
                                                                      Fn&& fn) {
  ForEachLawPoint(info, /*stress=*/false, /*tangent=*/false,
                  [&](std::size_t p, const GaussPoint& gp, const Kinematics&,
                      ConstitutiveLaw::Parameters& cl, ConstitutiveLaw& law) {
                    double w = 0.0;
                    law.CalculateValue(cl, STRAIN_ENERGY, w);
                    fn(p, gp, w);
                  });
}

template <class TDerived, int TDim, int TNodes>
double SolidElement<TDerived, TDim, TNodes>::CalculateStrainEnergy(const ProcessInfo& info) {
  double energy = 0.0;
  ForEachStrainEnergyDensity(
      info, [&](std::size_t, const GaussPoint& gp, double w) { energy += gp.weight * w; });
  return Thickness() * energy;
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::FinalizeSolutionStep(const ProcessInfo& info) {
  // Stateless (elastic) laws: nothing to commit, and the explicit strategy
  // calls this every step, where the pass cost as much as the internal force.
  EnsureInitialized(info);
  if (!finalize_laws_) return;
  // ForEachMaterialPoint leaves the point's strain in the thread's law input.
  ForEachMaterialPoint(info, false, [&](std::size_t p, const auto&...) {
    laws_[p]->FinalizeMaterialResponse(ThreadLawParameters<TDim, TNodes>(),
                                       ConstitutiveLaw::StressMeasure::PK2);
  });
}

// ---------------------------------------------------------------------------- local systems

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateAll(Matrix* lhs, Vector* rhs,
                                                        const ProcessInfo& info) {
  EnsureInitialized(info);
  const Properties& properties = GetProperties();
  const double thickness = Thickness();

  // Body force per unit reference volume: rho (g_properties + sum N_a g_a).
  const double density = properties.Has(DENSITY) ? properties.GetValue(DENSITY) : 0.0;
  Eigen::Matrix<double, TDim, 1> g_properties = Eigen::Matrix<double, TDim, 1>::Zero();
  if (properties.Has(VOLUME_ACCELERATION)) {
    const Array3 g = properties.GetValue(VOLUME_ACCELERATION);
    for (int i = 0; i < TDim; ++i) g_properties[i] = g[i];
  }
  NodalValues g_nodes = NodalValues::Zero();
  const Geometry& geometry = GetGeometry();
  NodalDatabase& db = *geometry.Database();
  // Nodal gravity only where it is set (an all-zero field costs nothing per Gauss point).
  bool nodal_gravity = false;
  if (db.HasHistoricalVariable(VOLUME_ACCELERATION)) {
    auto& column = db.HistoricalColumn(VOLUME_ACCELERATION);
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < TDim; ++i) g_nodes(a, i) = column[geometry.NodeIndex(a)][i];
    nodal_gravity = !g_nodes.isZero(0.0);
  }
  const bool body_force = density != 0.0 && (properties.Has(VOLUME_ACCELERATION) || nodal_gravity);

  LocalMatrix K;
  LocalVector r;
  if (lhs) K.setZero();
  if (rhs) r.setZero();
  ForEachMaterialPoint(
      info, lhs != nullptr,
      [&](std::size_t, const GaussPoint& gp, const Kinematics& k, const auto& S, const auto& D) {
        const double w = gp.weight * thickness;
        const Tensor S_tensor = StressTensor<TDim>(S);
        if (lhs) {
          K.noalias() += (w * k.B.transpose()) * (D * k.B);
          if constexpr (TDerived::kGeometricStiffness) {
            // d(B^T S)/du at fixed S: the initial-stress term dN_a . S . dN_b on each
            // displacement direction.
            const Eigen::Matrix<double, TNodes, TNodes> G =
                w * gp.dN_dX * S_tensor * gp.dN_dX.transpose();
            for (int a = 0; a < TNodes; ++a)
              for (int b = 0; b < TNodes; ++b)
                for (int i = 0; i < TDim; ++i) K(a * TDim + i, b * TDim + i) += G(a, b);
          }
        }
        if (rhs) {
          // B^T S without B: the force on node a is P dN_a with P = F_B S, F_B
          // the F of the formulation's B (F for total Lagrangian, I for small
          // displacements), so the explicit path never forms B.
          Tensor P = S_tensor;
          if constexpr (TDerived::kGeometricStiffness) P = k.F * S_tensor;
          const NodalValues forces = gp.dN_dX * (w * P.transpose());  // forces(a, i)
          for (int a = 0; a < TNodes; ++a)
            r.template segment<TDim>(a * TDim) -= forces.row(a).transpose();
          if (body_force) {
            Eigen::Matrix<double, TDim, 1> b = g_properties;
            if (nodal_gravity) b += g_nodes.transpose() * gp.N();
            b *= density * w;
            for (int a = 0; a < TNodes; ++a) r.template segment<TDim>(a * TDim) += gp.N()[a] * b;
          }
        }
      });
  if (lhs) *lhs = K;
  if (rhs) *rhs = r;
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateLocalSystem(Matrix& lhs, Vector& rhs,
                                                                const ProcessInfo& info) {
  CalculateAll(&lhs, &rhs, info);
}
template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateLeftHandSide(Matrix& lhs,
                                                                 const ProcessInfo& info) {
  CalculateAll(&lhs, nullptr, info);
}
template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateRightHandSide(Vector& rhs,
                                                                  const ProcessInfo& info) {
  CalculateAll(nullptr, &rhs, info);
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateMassMatrix(Matrix& mass,
                                                               const ProcessInfo& info) {
  EnsureInitialized(info);
  const Properties& properties = GetProperties();
  const double rho = (properties.Has(DENSITY) ? properties.GetValue(DENSITY) : 0.0) * Thickness();
  Eigen::Matrix<double, TNodes, TNodes> m = Eigen::Matrix<double, TNodes, TNodes>::Zero();
  const auto X = GetGeometry().InitialPoints();
  const std::span<const Array3> X_span(X.data(), X.size());
  if constexpr (TNodes == TDim + 1) {
    // Linear simplex: int N_a N_b dV = V (1 + delta_ab) / ((d + 1)(d + 2)), which a
    // one-point rule (the stiffness default) would get wrong.
    double volume = 0.0;
    for (std::size_t p = 0; p < n_points_; ++p) volume += Weight(X_span, p);
    m.setConstant(rho * volume / ((TDim + 1) * (TDim + 2)));
    m.diagonal() *= 2.0;
  } else {
    // Bilinear/trilinear: the default 2^d Gauss rule integrates N_a N_b det J0 exactly.
    for (std::size_t p = 0; p < n_points_; ++p)
      m.noalias() += (rho * Weight(X_span, p)) * reference_[p].N * reference_[p].N.transpose();
  }
  const bool lumped =
      info.Has(COMPUTE_LUMPED_MASS_MATRIX) && info.GetValue(COMPUTE_LUMPED_MASS_MATRIX);
  mass.setZero(kDofs, kDofs);
  for (int a = 0; a < TNodes; ++a)
    for (int b = 0; b < TNodes; ++b) {
      const double value = lumped ? (a == b ? m.row(a).sum() : 0.0) : m(a, b);
      for (int i = 0; i < TDim; ++i) mass(a * TDim + i, b * TDim + i) = value;
    }
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateDampingMatrix(Matrix& damping,
                                                                  const ProcessInfo& info) {
  const Properties& properties = GetProperties();
  auto coefficient = [&](const Variable<double>& variable) {
    if (properties.Has(variable)) return properties.GetValue(variable);
    return info.Has(variable) ? info.GetValue(variable) : 0.0;
  };
  const double alpha = coefficient(RAYLEIGH_ALPHA);
  const double beta = coefficient(RAYLEIGH_BETA);
  if (alpha == 0.0 && beta == 0.0) {
    damping.resize(0, 0);
    return;
  }
  thread_local Matrix scratch;
  damping.setZero(kDofs, kDofs);
  if (alpha != 0.0) {
    CalculateMassMatrix(scratch, info);
    damping.noalias() += alpha * scratch;
  }
  if (beta != 0.0) {
    CalculateLeftHandSide(scratch, info);
    damping.noalias() += beta * scratch;
  }
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateLumpedMassVector(Vector& mass,
                                                                     const ProcessInfo&) const {
  // Row sums of the consistent mass: int rho N_a dV0 per node (sum N_b = 1).
  const Properties& properties = GetProperties();
  const double rho = (properties.Has(DENSITY) ? properties.GetValue(DENSITY) : 0.0) * Thickness();
  mass.setZero(kDofs);
  if (n_points_ == 0) TESSERA_ERROR(Info(), ": CalculateLumpedMassVector before Initialize");
  const auto X = GetGeometry().InitialPoints();
  const std::span<const Array3> X_span(X.data(), X.size());
  for (std::size_t p = 0; p < n_points_; ++p) {
    const double weight = Weight(X_span, p);
    for (int a = 0; a < TNodes; ++a)
      for (int i = 0; i < TDim; ++i) mass[a * TDim + i] += rho * weight * reference_[p].N[a];
  }
}

// ---------------------------------------------------------------------------- results

namespace {

template <int TDim>
Vector StressVoigt(const Eigen::Matrix<double, TDim, TDim>& t) {
  Vector s(TDim == 3 ? 6 : 3);
  for (int i = 0; i < TDim; ++i) s[i] = t(i, i);
  if constexpr (TDim == 3) {
    s[3] = t(0, 1);
    s[4] = t(1, 2);
    s[5] = t(0, 2);
  } else {
    s[2] = t(0, 1);
  }
  return s;
}
double VonMises(const Vector& s) {
  if (s.size() == 6)
    return std::sqrt(0.5 * ((s[0] - s[1]) * (s[0] - s[1]) + (s[1] - s[2]) * (s[1] - s[2]) +
                            (s[2] - s[0]) * (s[2] - s[0])) +
                     3.0 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
  return std::sqrt(s[0] * s[0] - s[0] * s[1] + s[1] * s[1] + 3.0 * s[2] * s[2]);
}

}  // namespace

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateOnIntegrationPoints(
    const Variable<Vector>& variable, std::vector<Vector>& out, const ProcessInfo& info) {
  out.clear();
  const bool strain = &variable == &STRAIN_VECTOR || &variable == &GREEN_LAGRANGE_STRAIN_VECTOR;
  const bool pk2 = &variable == &STRESS_VECTOR || &variable == &PK2_STRESS_VECTOR;
  const bool cauchy = &variable == &CAUCHY_STRESS_VECTOR;
  if (!strain && !pk2 && !cauchy) return;
  ForEachMaterialPoint(
      info, false,
      [&](std::size_t, const GaussPoint&, const Kinematics& k, const auto& S, const auto&) {
        if (strain)
          out.emplace_back(k.strain);
        else if (pk2 || !TDerived::kGeometricStiffness)
          out.emplace_back(S);  // small strains: every stress measure is the same
        else
          out.push_back(StressVoigt<TDim>(k.F * StressTensor<TDim>(S) * k.F.transpose() / k.det_F));
      });
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateOnIntegrationPoints(
    const Variable<double>& variable, std::vector<double>& out, const ProcessInfo& info) {
  out.clear();
  if (&variable == &EQUIVALENT_PLASTIC_STRAIN) {
    // The committed value of plastic laws; empty for laws without plasticity.
    EnsureInitialized(info);
    for (std::size_t p = 0; p < n_points_; ++p)
      if (const auto* plastic = dynamic_cast<const PlasticInternalVariables*>(&LawAt(p)))
        out.push_back(plastic->EquivalentPlasticStrain());
    return;
  }
  if (&variable == &STRAIN_ENERGY) {
    ForEachStrainEnergyDensity(info,
                               [&](std::size_t, const GaussPoint&, double w) { out.push_back(w); });
    return;
  }
  if (&variable != &VON_MISES_STRESS) return;
  std::vector<Vector> cauchy;
  CalculateOnIntegrationPoints(CAUCHY_STRESS_VECTOR, cauchy, info);
  for (const Vector& s : cauchy) out.push_back(VonMises(s));
}

template <class TDerived, int TDim, int TNodes>
void SolidElement<TDerived, TDim, TNodes>::CalculateOnIntegrationPoints(
    const Variable<Matrix>& variable, std::vector<Matrix>& out, const ProcessInfo& info) {
  out.clear();
  if (&variable == &PLASTIC_STRAIN_TENSOR) {
    EnsureInitialized(info);
    for (std::size_t p = 0; p < n_points_; ++p)
      if (const auto* plastic = dynamic_cast<const PlasticInternalVariables*>(&LawAt(p)))
        out.push_back(plastic->PlasticStrainTensor());
  } else if (&variable == &CONSTITUTIVE_MATRIX) {
    ForEachMaterialPoint(info, true,
                         [&](std::size_t, const GaussPoint&, const Kinematics&, const auto&,
                             const auto& D) { out.emplace_back(D); });
  } else if (&variable == &DEFORMATION_GRADIENT) {
    ForEachMaterialPoint(info, false,
                         [&](std::size_t, const GaussPoint&, const Kinematics& k, const auto&,
                             const auto&) { out.emplace_back(k.F); });
  } else if (&variable == &GREEN_LAGRANGE_STRAIN_TENSOR) {
    ForEachMaterialPoint(
        info, false,
        [&](std::size_t, const GaussPoint&, const Kinematics& k, const auto&, const auto&) {
          Tensor E = StressTensor<TDim>(k.strain);
          for (int i = 0; i < TDim; ++i)
            for (int j = 0; j < TDim; ++j)
              if (i != j) E(i, j) *= 0.5;  // engineering shear -> tensor component
          out.emplace_back(E);
        });
  } else if (&variable == &PK2_STRESS_TENSOR || &variable == &CAUCHY_STRESS_TENSOR) {
    std::vector<Vector> stresses;
    CalculateOnIntegrationPoints(
        &variable == &PK2_STRESS_TENSOR ? PK2_STRESS_VECTOR : CAUCHY_STRESS_VECTOR, stresses, info);
    for (const Vector& s : stresses) out.emplace_back(StressTensor<TDim>(s));
  }
}

// ---------------------------------------------------------------------------- checks

template <class TDerived, int TDim, int TNodes>
int SolidElement<TDerived, TDim, TNodes>::Check(const ProcessInfo& info) const {
  Element::Check(info);
  const ConstitutiveLaw::Pointer& law = PropertiesLaw(*this);
  const Properties& properties = GetProperties();
  if (law->WorkingSpaceDimension() != TDim || law->GetStrainSize() != kStrain)
    TESSERA_ERROR(Info(), ": constitutive law ", law->Info(), " is for ",
                  law->WorkingSpaceDimension(), "D with ", law->GetStrainSize(),
                  " strain components; this element needs a ", TDim, "D law with ", kStrain);
  law->Check(properties, GetGeometry(), info);
  if constexpr (TDim == 2) {
    if (properties.Has(THICKNESS) && !(properties.GetValue(THICKNESS) > 0.0))
      TESSERA_ERROR(Info(), ": properties ", properties.Id(), ": THICKNESS must be positive");
  }
  const Geometry& g = GetGeometry();
  const NodalDatabase& db = *g.Database();
  if (!db.HasHistoricalVariable(DISPLACEMENT))
    TESSERA_ERROR(Info(), ": DISPLACEMENT must be a solution-step variable of the model part");
  for (int a = 0; a < TNodes; ++a)
    for (int i = 0; i < TDim; ++i)
      if (!db.HasDof(*kDisplacementComponents[i], g.NodeIndex(a)))
        TESSERA_ERROR(Info(), ": node ", db.Id(g.NodeIndex(a)), " has no degree of freedom ",
                      kDisplacementComponents[i]->Name());
  const auto X = g.InitialPoints();
  if (!(g.Type().DomainSize({X.data(), X.size()}) > 0.0))
    TESSERA_ERROR(Info(), ": non-positive reference ", TDim == 2 ? "area" : "volume",
                  " (nodes ordered clockwise, or a degenerate element)");
  return 0;
}

// ---------------------------------------------------------------------------- names

template <>
const char* SmallDisplacementElement<2, 3>::Name() {
  return "SmallDisplacementElement2D3N";
}
template <>
const char* SmallDisplacementElement<2, 4>::Name() {
  return "SmallDisplacementElement2D4N";
}
template <>
const char* SmallDisplacementElement<3, 4>::Name() {
  return "SmallDisplacementElement3D4N";
}
template <>
const char* SmallDisplacementElement<3, 8>::Name() {
  return "SmallDisplacementElement3D8N";
}
template <>
const char* TotalLagrangianElement<2, 3>::Name() {
  return "TotalLagrangianElement2D3N";
}
template <>
const char* TotalLagrangianElement<2, 4>::Name() {
  return "TotalLagrangianElement2D4N";
}
template <>
const char* TotalLagrangianElement<3, 4>::Name() {
  return "TotalLagrangianElement3D4N";
}
template <>
const char* TotalLagrangianElement<3, 8>::Name() {
  return "TotalLagrangianElement3D8N";
}

template class SolidElement<SmallDisplacementElement<2, 3>, 2, 3>;
template class SolidElement<SmallDisplacementElement<2, 4>, 2, 4>;
template class SolidElement<SmallDisplacementElement<3, 4>, 3, 4>;
template class SolidElement<SmallDisplacementElement<3, 8>, 3, 8>;
template class SolidElement<TotalLagrangianElement<2, 3>, 2, 3>;
template class SolidElement<TotalLagrangianElement<2, 4>, 2, 4>;
template class SolidElement<TotalLagrangianElement<3, 4>, 3, 4>;
template class SolidElement<TotalLagrangianElement<3, 8>, 3, 8>;

}  // namespace tessera::structural
