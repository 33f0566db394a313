// DemContactLoadCondition2D1N / 3D1N: the DEM contact force on one FE node.
//
// The coupled stage puts one on every node of the structure's skin. Its
// right-hand side is the node's DEM_NODAL_FORCE (historical), the reaction of
// the sphere-skin contacts of the last DEM step spread to the node; it has no
// stiffness and no mass. A nodal force rather than a traction integrated over
// the faces: the transfer then hands the structure exactly minus the sum of
// the forces on the spheres, to round-off.
#pragma once

#include "kernel/model/element.h"

namespace tessera::coupling {

template <int TDim>
class DemContactLoadCondition final : public Condition {
 public:
  using Condition::Condition;
  TESSERA_ELEMENT_CREATE(DemContactLoadCondition, ::tessera::Condition)

  void EquationIdVector(std::vector<IdType>& ids, const ProcessInfo& info) const override;
  void GetDofList(std::vector<DofReference>& dofs, const ProcessInfo& info) const override;
  void CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo& info) override;
  void CalculateLeftHandSide(Matrix& lhs, const ProcessInfo& info) override;
  void CalculateRightHandSide(Vector& rhs, const ProcessInfo& info) override;
  int Check(const ProcessInfo& info) const override;
  std::string Info() const override;
};

}  // namespace tessera::coupling
