// Load conditions: point, line and surface loads with follower pressure.
//
// Distributed loads at a Gauss point with weight w on the current cell:
//   n = (t_y, -t_x) for a 2D line (t = dx/dxi), n = a1 x a2 for a surface
//   (a1 = dx/dxi, a2 = dx/deta), so |n| is the length/area density;
//   f_a = N_a w (|n| q - p n).
// Derivatives with respect to the current position of node b:
//   dn/dx_b = M_b with M_b = dN_b/dxi [[0, 1], [-1, 0]] (line) or
//   M_b = -dN_b/dxi [a2]x + dN_b/deta [a1]x (surface; [v]x w = v x w),
//   d|n|/dx_b = n^T M_b / |n|,
// so the exact load stiffness would be K_ab = N_a w (p M_b - q (n^T M_b) / |n|).
// As Kratos' LineLoadCondition / SurfaceLoadCondition, only the pressure part
// N_a w p M_b enters the LHS: LINE_LOAD / SURFACE_LOAD are dead loads in a fixed
// direction, whose resultant still follows the current length/area in the RHS
// but contributes no load stiffness (Newton converges, not quadratically, when
// the loaded boundary stretches). A pure LINE_LOAD / SURFACE_LOAD gives LHS = 0.
#include "conditions/load_conditions.h"

#include <span>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/geometries/geometry_type.h"

namespace tessera::structural {
namespace {

constexpr const Variable<double>* kComponents[3] = {&DISPLACEMENT_X, &DISPLACEMENT_Y,
                                                    &DISPLACEMENT_Z};

// A nodal vector load: historical when the model part stores the variable,
// else the node's own value (zero when unset), as Kratos reads it.
Array3 NodalLoad(const Node& node, const Variable<Array3>& variable) {
  if (node.SolutionStepsDataHas(variable)) return node.GetSolutionStepValue(variable);
  if (node.Has(variable)) return node.GetValue(variable);
  return {0.0, 0.0, 0.0};
}
double NodalPressure(const Node& node) {
  double p = 0.0;
  if (node.SolutionStepsDataHas(NEGATIVE_FACE_PRESSURE))
    p += node.GetSolutionStepValue(NEGATIVE_FACE_PRESSURE);
  if (node.SolutionStepsDataHas(POSITIVE_FACE_PRESSURE))
    p -= node.GetSolutionStepValue(POSITIVE_FACE_PRESSURE);
  return p;
}

}  // namespace

// ---------------------------------------------------------------------------- shared

template <int TDim, int TNodes>
void DisplacementCondition<TDim, TNodes>::EquationIdVector(std::vector<IdType>& ids,
                                                           const ProcessInfo&) const {
  const Geometry& g = GetGeometry();
  NodalDatabase& db = *g.Database();
  ids.resize(kDofs);
  for (int a = 0; a < TNodes; ++a)
    for (int i = 0; i < TDim; ++i)
      ids[a * TDim + i] = db.EquationId(*kComponents[i], g.NodeIndex(a));
}

template <int TDim, int TNodes>
void DisplacementCondition<TDim, TNodes>::GetDofList(std::vector<DofReference>& dofs,
                                                     const ProcessInfo&) const {
  const Geometry& g = GetGeometry();
  dofs.resize(kDofs);
  for (int a = 0; a < TNodes; ++a)
    for (int i = 0; i < TDim; ++i) dofs[a * TDim + i] = {g.NodeIndex(a), kComponents[i]};
}

template <int TDim, int TNodes>
void DisplacementCondition<TDim, TNodes>::GetValuesVector(Vector& values, int step) const {
  const Geometry& g = GetGeometry();
  values.setZero(kDofs);
  if (!g.Database()->HasHistoricalVariable(DISPLACEMENT)) return;
  for (int a = 0; a < TNodes; ++a) {
    const Array3& u = g[a].GetSolutionStepValue(DISPLACEMENT, step);
    for (int i = 0; i < TDim; ++i) values[a * TDim + i] = u[i];
  }
}

template <int TDim, int TNodes>
void DisplacementCondition<TDim, TNodes>::CalculateLeftHandSide(Matrix& lhs,
                                                                const ProcessInfo& info) {
  // The other half of the local system goes to a per-thread buffer that keeps
  // its size, so residual-only builds allocate nothing per condition.
  static thread_local Vector rhs;
  CalculateLocalSystem(lhs, rhs, info);
}
template <int TDim, int TNodes>
void DisplacementCondition<TDim, TNodes>::CalculateRightHandSide(Vector& rhs,
                                                                 const ProcessInfo& info) {
  static thread_local Matrix lhs;
  CalculateLocalSystem(lhs, rhs, info);
}

template <int TDim, int TNodes>
int DisplacementCondition<TDim, TNodes>::Check(const ProcessInfo& info) const {
  Condition::Check(info);
  const Geometry& g = GetGeometry();
  const NodalDatabase& db = *g.Database();
  if (!db.HasHistoricalVariable(DISPLACEMENT))
    TESSERA_ERROR(Info(), ": DISPLACEMENT must be a solution-step variable of the model part");
  for (int a = 0; a < TNodes; ++a)
    for (int i = 0; i < TDim; ++i)
      if (!db.HasDof(*kComponents[i], g.NodeIndex(a)))
        TESSERA_ERROR(Info(), ": node ", db.Id(g.NodeIndex(a)), " has no degree of freedom ",
                      kComponents[i]->Name());
  return 0;
}

// ---------------------------------------------------------------------------- point load

template <int TDim>
void PointLoadCondition<TDim>::CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo&) {
  Array3 f = NodalLoad(this->GetGeometry()[0], POINT_LOAD);
  if (this->Has(POINT_LOAD)) f += this->GetValue(POINT_LOAD);
  lhs.setZero(TDim, TDim);
  rhs.resize(TDim);
  for (int i = 0; i < TDim; ++i) rhs[i] = f[i];
}

// ---------------------------------------------------------------------------- distributed load

template <int TDim, int TNodes>
std::string DistributedLoadCondition<TDim, TNodes>::Info() const {
  return std::string(TDim == 2 ? "LineLoadCondition2D" : "SurfaceLoadCondition3D") +
         std::to_string(TNodes) + "N #" + std::to_string(this->Id());
}

template <int TDim, int TNodes>
void DistributedLoadCondition<TDim, TNodes>::CalculateLocalSystem(Matrix& lhs, Vector& rhs,
                                                                  const ProcessInfo&) {
  using Vec = Eigen::Matrix<double, TDim, 1>;
  using Mat = Eigen::Matrix<double, TDim, TDim>;
  constexpr int kLocal = TDim - 1;
  constexpr int kDofs = TDim * TNodes;
  const Geometry& g = this->GetGeometry();
  const GeometryType& type = g.Type();
  const Variable<Array3>& load_variable = TDim == 2 ? LINE_LOAD : SURFACE_LOAD;

  // Condition loads, then the nodal ones (interpolated at the Gauss points).
  Vec q_condition = Vec::Zero();
  if (this->Has(load_variable)) {
    const Array3 q = this->GetValue(load_variable);
    for (int i = 0; i < TDim; ++i) q_condition[i] = q[i];
  }
  double p_condition = 0.0;
  if (this->Has(PRESSURE)) p_condition += this->GetValue(PRESSURE);
  if (this->Has(NEGATIVE_FACE_PRESSURE)) p_condition += this->GetValue(NEGATIVE_FACE_PRESSURE);
  if (this->Has(POSITIVE_FACE_PRESSURE)) p_condition -= this->GetValue(POSITIVE_FACE_PRESSURE);
  Eigen::Matrix<double, TNodes, TDim> q_nodes;
  Eigen::Matrix<double, TNodes, 1> p_nodes;
  Eigen::Matrix<double, TNodes, TDim> x;
  for (int a = 0; a < TNodes; ++a) {
    const Node node = g[a];
    const Array3 q = NodalLoad(node, load_variable);
    const Array3& position = node.Coordinates();
    for (int i = 0; i < TDim; ++i) {
      q_nodes(a, i) = q[i];
      x(a, i) = position[i];
    }
    p_nodes[a] = NodalPressure(node);
  }

  Eigen::Matrix<double, kDofs, kDofs> K = Eigen::Matrix<double, kDofs, kDofs>::Zero();
  Eigen::Matrix<double, kDofs, 1> f = Eigen::Matrix<double, kDofs, 1>::Zero();
  // One order above the geometry's default: exact for loads varying linearly
  // between nodes on straight/flat cells (N_a times a linear load).
  const auto& points = type.IntegrationPoints(type.DefaultIntegrationOrder() + 1);
  static thread_local Matrix dN_dxi;
  Eigen::Matrix<double, TNodes, 1> N;
  for (const IntegrationPoint& ip : points) {
    type.ShapeFunctionsValues(ip.local, N.data());
    type.ShapeFunctionsLocalGradients(ip.local, dN_dxi);
    const Eigen::Matrix<double, TNodes, kLocal> dN = dN_dxi.topLeftCorner<TNodes, kLocal>();
    const Eigen::Matrix<double, TDim, kLocal> J = x.transpose() * dN;  // dx/dxi
    Vec n;
    if constexpr (TDim == 2)
      n << J(1, 0), -J(0, 0);
    else
      n = J.col(0).cross(J.col(1));
    const double area = n.norm();
    if (!(area > 0.0))
      TESSERA_ERROR(Info(), ": degenerate (zero length/area) in the current configuration");
    const Vec q = q_condition + q_nodes.transpose() * N;
    const double p = p_condition + p_nodes.dot(N);
    const double w = ip.weight;
    const Vec traction = area * q - p * n;  // per unit reference-cell measure
    for (int a = 0; a < TNodes; ++a) f.template segment<TDim>(a * TDim) += (N[a] * w) * traction;

    for (int b = 0; b < TNodes; ++b) {
      Mat M;  // dn / dx_b
      if constexpr (TDim == 2) {
        M << 0.0, dN(b, 0), -dN(b, 0), 0.0;
      } else {
        auto skew = [](const Vec& v) {
          Mat s;
          s << 0.0, -v[2], v[1], v[2], 0.0, -v[0], -v[1], v[0], 0.0;
          return s;
        };
        M = -dN(b, 0) * skew(J.col(1)) + dN(b, 1) * skew(J.col(0));
      }
      const Mat dF = p * M;  // the pressure part of -d(traction)/dx_b (see the top)
      for (int a = 0; a < TNodes; ++a)
        K.template block<TDim, TDim>(a * TDim, b * TDim) += (N[a] * w) * dF;
    }
  }
  lhs = K;
  rhs = f;
}

template class DisplacementCondition<2, 1>;
template class DisplacementCondition<3, 1>;
template class DisplacementCondition<2, 2>;
template class DisplacementCondition<3, 3>;
template class DisplacementCondition<3, 4>;
template class PointLoadCondition<2>;
template class PointLoadCondition<3>;
template class DistributedLoadCondition<2, 2>;
template class DistributedLoadCondition<3, 3>;
template class DistributedLoadCondition<3, 4>;

}  // namespace tessera::structural
