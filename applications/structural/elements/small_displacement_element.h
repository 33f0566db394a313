// SmallDisplacementElement<TDim, TNodes>: linear kinematics, strain = B u with
// the constant B of the reference configuration; the tangent is B^T D B.
// Registered as SmallDisplacementElement2D3N, 2D4N, 3D4N, 3D8N.
#pragma once

#include "elements/solid_element.h"

namespace tessera::structural {

template <int TDim, int TNodes>
class SmallDisplacementElement final
    : public SolidElement<SmallDisplacementElement<TDim, TNodes>, TDim, TNodes> {
  using Base = SolidElement<SmallDisplacementElement<TDim, TNodes>, TDim, TNodes>;

 public:
  using Base::Base;
  TESSERA_ELEMENT_CREATE(SmallDisplacementElement, ::tessera::Element)

  static constexpr bool kGeometricStiffness = false;
  static const char* Name();

  // Small strain eps = B u. The law receives the "equivalent" deformation
  // gradient I + eps (symmetric, rotation-free), so finite-strain laws used with
  // this element see the strain only.
  static void ComputeKinematics(const typename Base::GaussPoint& gp,
                                const typename Base::NodalValues& u, typename Base::Kinematics& k,
                                bool with_b = true) {
    const typename Base::Tensor H = u.transpose() * gp.dN_dX;  // H_ij = du_i/dX_j
    const typename Base::Tensor eps = 0.5 * (H + H.transpose());
    if (with_b) Base::FillB(gp.dN_dX, Base::Tensor::Identity(), k.B);
    k.F = Base::Tensor::Identity() + eps;
    k.det_F = k.F.determinant();
    for (int I = 0; I < TDim; ++I) k.strain[I] = eps(I, I);
    if constexpr (TDim == 3) {
      k.strain[3] = 2.0 * eps(0, 1);
      k.strain[4] = 2.0 * eps(1, 2);
      k.strain[5] = 2.0 * eps(0, 2);
    } else {
      k.strain[2] = 2.0 * eps(0, 1);
    }
  }
};

}  // namespace tessera::structural
