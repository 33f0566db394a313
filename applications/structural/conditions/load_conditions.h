// Load conditions of the structural application, with Kratos' names:
//
//   PointLoadCondition2D1N / 3D1N   f = POINT_LOAD (condition) + POINT_LOAD (node)
//   LineLoadCondition2D2N           f = int N (q - p n) dl over the current line
//   SurfaceLoadCondition3D3N / 3D4N f = int N (q - p n) dA over the current surface
//
// q is the condition's LINE_LOAD / SURFACE_LOAD (what
// assign_vector_by_direction_to_condition_process writes) plus the nodal one
// interpolated (historical if the model part stores it, else the node's
// non-historical value), a force per unit current length/area in a fixed
// direction. p = PRESSURE + NEGATIVE_FACE_PRESSURE - POSITIVE_FACE_PRESSURE of
// the condition plus the nodal NEGATIVE - POSITIVE face pressures (Kratos'
// sign convention): a follower pressure along -n, where n is the outward
// normal of a counter-clockwise line (t x e_z) or of a surface ordered
// counter-clockwise seen from outside (dx/dxi x dx/deta).
//
// Both terms depend on the current geometry. The LHS is the exact derivative
// -df/du of the pressure term only (the follower load stiffness), as Kratos:
// LINE_LOAD / SURFACE_LOAD give no load stiffness. No thickness factor: a 2D line load is a
// force per unit length of the line, as Kratos applies it.
#pragma once

#include <Eigen/Dense>

#include "kernel/model/element.h"

namespace tessera::structural {

template <int TDim, int TNodes>
class DisplacementCondition : public Condition {
 public:
  static constexpr int kDofs = TDim * TNodes;
  using Condition::Condition;

  void EquationIdVector(std::vector<IdType>& ids, const ProcessInfo& info) const override;
  void GetDofList(std::vector<DofReference>& dofs, const ProcessInfo& info) const override;
  void GetValuesVector(Vector& values, int step = 0) const override;
  void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) override;
  void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) override;
  int Check(const ProcessInfo& info) const override;
};

template <int TDim>
class PointLoadCondition final : public DisplacementCondition<TDim, 1> {
 public:
  using DisplacementCondition<TDim, 1>::DisplacementCondition;
  TESSERA_ELEMENT_CREATE(PointLoadCondition, ::tessera::Condition)
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info) override;
  std::string Info() const override {
    return "PointLoadCondition" + std::to_string(TDim) + "D1N #" + std::to_string(this->Id());
  }
};

// Lines in 2D (TLocal = 1) and surfaces in 3D (TLocal = 2).
template <int TDim, int TNodes>
class DistributedLoadCondition final : public DisplacementCondition<TDim, TNodes> {
 public:
  using DisplacementCondition<TDim, TNodes>::DisplacementCondition;
  TESSERA_ELEMENT_CREATE(DistributedLoadCondition, ::tessera::Condition)
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info) override;
  std::string Info() const override;
};

using LineLoadCondition2D2N = DistributedLoadCondition<2, 2>;
using SurfaceLoadCondition3D3N = DistributedLoadCondition<3, 3>;
using SurfaceLoadCondition3D4N = DistributedLoadCondition<3, 4>;

}  // namespace tessera::structural
