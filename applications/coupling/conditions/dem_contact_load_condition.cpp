// The DEM contact force on one FE node, as a right-hand side.
#include "conditions/dem_contact_load_condition.h"

#include <string>

#include "coupling_variables.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"

namespace tessera::coupling {
namespace {

constexpr const Variable<double>* kComponents[3] = {&DISPLACEMENT_X, &DISPLACEMENT_Y,
                                                    &DISPLACEMENT_Z};

}  // namespace

template <int TDim>
void DemContactLoadCondition<TDim>::EquationIdVector(std::vector<IdType>& ids,
                                                     const ProcessInfo&) const {
  const Geometry& g = GetGeometry();
  NodalDatabase& db = *g.Database();
  ids.resize(TDim);
  for (int i = 0; i < TDim; ++i) ids[i] = db.EquationId(*kComponents[i], g.NodeIndex(0));
}

template <int TDim>
void DemContactLoadCondition<TDim>::GetDofList(std::vector<DofReference>& dofs,
                                               const ProcessInfo&) const {
  dofs.resize(TDim);
  for (int i = 0; i < TDim; ++i) dofs[i] = {GetGeometry().NodeIndex(0), kComponents[i]};
}

template <int TDim>
void DemContactLoadCondition<TDim>::CalculateRightHandSide(Vector& rhs, const ProcessInfo&) {
  const Array3& f = GetGeometry()[0].GetSolutionStepValue(DEM_NODAL_FORCE);
  rhs.resize(TDim);
  for (int i = 0; i < TDim; ++i) rhs[i] = f[i];
}

template <int TDim>
void DemContactLoadCondition<TDim>::CalculateLeftHandSide(Matrix& lhs, const ProcessInfo&) {
  lhs.setZero(TDim, TDim);  // a dead load for the step: no stiffness
}

template <int TDim>
void DemContactLoadCondition<TDim>::CalculateLocalSystem(Matrix& lhs, Vector& rhs,
                                                         const ProcessInfo& info) {
  CalculateLeftHandSide(lhs, info);
  CalculateRightHandSide(rhs, info);
}

template <int TDim>
int DemContactLoadCondition<TDim>::Check(const ProcessInfo& info) const {
  Condition::Check(info);
  const Geometry& g = GetGeometry();
  const NodalDatabase& db = *g.Database();
  if (!db.HasHistoricalVariable(DEM_NODAL_FORCE))
    TESSERA_ERROR(Info(), ": DEM_NODAL_FORCE must be a solution-step variable of the model part");
  for (int i = 0; i < TDim; ++i)
    if (!db.HasDof(*kComponents[i], g.NodeIndex(0)))
      TESSERA_ERROR(Info(), ": node ", db.Id(g.NodeIndex(0)), " has no degree of freedom ",
                    kComponents[i]->Name());
  return 0;
}

template <int TDim>
std::string DemContactLoadCondition<TDim>::Info() const {
  return "DemContactLoadCondition" + std::to_string(TDim) + "D1N #" + std::to_string(Id());
}

template class DemContactLoadCondition<2>;
template class DemContactLoadCondition<3>;

}  // namespace tessera::coupling
