// The strain (stored) energy of a structure, for energy balances such as the
// DE-FE coupling's (thesis eq. 4.75a): E_int = int_Omega0 w dOmega0, w the
// constitutive laws' STRAIN_ENERGY (per unit reference volume; the elastic
// stored part for the plastic laws, the plastic work excluded).
#pragma once

#include "kernel/model/model_part.h"

namespace tessera::structural {

// Sum over the model part's elements of their CalculateStrainEnergy (Gauss
// weights x reference Jacobians, x THICKNESS / CROSS_AREA where the element
// has one), at the current displacements, with the model part's process info.
// The sum runs in the kernel's deterministic ParallelReduce (fixed blocks in
// element order), so it is bitwise the same for any number of threads. An
// element that stores no strain energy (not a structural solid, truss or
// membrane), or one whose law does not provide STRAIN_ENERGY, is an error
// naming it; conditions are not visited (they store none). Elements that are
// not initialised yet are initialised (as their first assembly would).
double ComputeStrainEnergy(ModelPart& model_part);

}  // namespace tessera::structural
