// StrainEnergyProvider: the structural elements that store strain energy (the
// solids, the truss, the membranes) also derive from this interface, which
// utilities/strain_energy.h finds by dynamic_cast, so that the kernel's Element
// needs no energy of its own and an element without it is a clear error.
#pragma once

#include "kernel/model/process_info.h"

namespace tessera::structural {

class StrainEnergyProvider {
 public:
  // The strain energy stored in the element at the current displacements,
  // int w dV0 over the reference configuration, w = the law's STRAIN_ENERGY
  // (plus the prestress' S_0 : E where the element adds one) at each
  // integration point times its weight: w det J0 (x THICKNESS in 2D and for
  // membranes, x CROSS_AREA L for the truss). Allocates nothing once the
  // element's thread-local law buffers have their sizes.
  virtual double CalculateStrainEnergy(const ProcessInfo& info) = 0;

 protected:
  ~StrainEnergyProvider() = default;
};

}  // namespace tessera::structural
