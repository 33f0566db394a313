// TotalLagrangianElement<TDim, TNodes>: finite-deformation kinematics on the
// reference configuration. F = I + sum_a u_a (x) dN_a/dX, Green-Lagrange strain
// E = (F^T F - I)/2, PK2 stress S from the law; internal force int B^T S dV0 with
// the F-dependent B, tangent int B^T D B dV0 (material) + int dN_a.S.dN_b dV0 I
// (geometric). Registered as TotalLagrangianElement2D3N, 2D4N, 3D4N, 3D8N.
#pragma once

#include "elements/solid_element.h"

namespace tessera::structural {

template <int TDim, int TNodes>
class TotalLagrangianElement final
    : public SolidElement<TotalLagrangianElement<TDim, TNodes>, TDim, TNodes> {
  using Base = SolidElement<TotalLagrangianElement<TDim, TNodes>, TDim, TNodes>;

 public:
  using Base::Base;
  TESSERA_ELEMENT_CREATE(TotalLagrangianElement, ::tessera::Element)

  static constexpr bool kGeometricStiffness = true;
  static const char* Name();

  // with_b = false skips B (the internal force alone uses F S dN_a instead).
  static void ComputeKinematics(const typename Base::GaussPoint& gp,
                                const typename Base::NodalValues& u, typename Base::Kinematics& k,
                                bool with_b = true) {
    k.F = Base::Tensor::Identity() + u.transpose() * gp.dN_dX;
    k.det_F = k.F.determinant();
    k.strain = Base::GreenLagrange(k.F);
    if (with_b) Base::FillB(gp.dN_dX, k.F, k.B);
  }
};

}  // namespace tessera::structural
