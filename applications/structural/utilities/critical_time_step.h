// Critical time step of explicit central differences for the solid elements of
// a model part: dt_crit = min over elements of l_e / c_e, with
//   c_e = sqrt(E (1 - nu) / (rho (1 + nu)(1 - 2 nu)))  (dilatational wave speed;
//         in 2D too, which is the larger and hence the safe speed),
//   l_e = the element's smallest height: d V / (largest facet) for simplices,
//         V / (largest facet) for quadrilaterals and hexahedra (the usual
//         characteristic lengths, e.g. Belytschko, Liu & Moran 2000, sec. 6.3),
// on the reference configuration; for bars and cables (Line3D2) l_e is the
// length and c_e = sqrt((E + S_0) / rho) with S_0 the tensile
// TRUSS_PRESTRESS_PK2 (its geometric stiffness carries transverse waves). A
// solver multiplies it by a safety fraction.
#pragma once

#include "kernel/model/geometry.h"
#include "kernel/model/model_part.h"

namespace tessera::structural {

// Throws naming the element when its properties lack YOUNG_MODULUS, DENSITY or a
// Poisson ratio in [0, 1/2), or when the model part has no elements.
double EstimateCriticalTimeStep(ModelPart& model_part);

// The characteristic length l_e of one element (see above).
double CharacteristicLength(const Geometry& geometry);

}  // namespace tessera::structural
