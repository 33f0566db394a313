// LaplacianElement: a linear triangle for -div(k grad T) = Q.
//
// K_ab = ∫ k ∇N_a·∇N_b dA and f_a = ∫ Q N_a dA with k = CONDUCTIVITY from the
// properties and Q = LAPLACE_SOURCE from the element data. The local system is
// returned in residual form (LHS = K, RHS = f − K T), as Kratos elements do.
#pragma once

#include "kernel/model/element.h"

namespace laplace {

class LaplacianElement : public tessera::Element {
 public:
  using Element::Element;
  TESSERA_ELEMENT_CREATE(LaplacianElement, tessera::Element)

  void EquationIdVector(std::vector<tessera::IdType>& ids,
                        const tessera::ProcessInfo& info) const override;
  void GetDofList(std::vector<tessera::DofReference>& dofs,
                  const tessera::ProcessInfo& info) const override;
  void CalculateLocalSystem(tessera::Matrix& lhs, tessera::Vector& rhs,
                            const tessera::ProcessInfo& info) override;
  int Check(const tessera::ProcessInfo& info) const override;
  std::string Info() const override { return "LaplacianElement2D3N #" + std::to_string(Id()); }
};

}  // namespace laplace
