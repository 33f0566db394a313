// The variables of the structural application that the kernel does not define
// (DISPLACEMENT, REACTION, VOLUME_ACCELERATION, POINT_LOAD, LINE_LOAD,
// SURFACE_LOAD, YOUNG_MODULUS, POISSON_RATIO, DENSITY, THICKNESS, STRESS_VECTOR,
// STRAIN_VECTOR, CONSTITUTIVE_MATRIX, DEFORMATION_GRADIENT are kernel_variables.h).
// Names and meanings follow Kratos' StructuralMechanicsApplication.
#pragma once

#include "kernel/core/variable.h"

namespace tessera::structural {

// Results at integration points (Voigt vectors: xx, yy, [zz,] xy[, yz, xz]).
TESSERA_DECLARE_VARIABLE(Vector, CAUCHY_STRESS_VECTOR);
TESSERA_DECLARE_VARIABLE(Vector, PK2_STRESS_VECTOR);
TESSERA_DECLARE_VARIABLE(Vector, GREEN_LAGRANGE_STRAIN_VECTOR);
TESSERA_DECLARE_VARIABLE(Matrix, CAUCHY_STRESS_TENSOR);
TESSERA_DECLARE_VARIABLE(Matrix, PK2_STRESS_TENSOR);
TESSERA_DECLARE_VARIABLE(Matrix, GREEN_LAGRANGE_STRAIN_TENSOR);
TESSERA_DECLARE_VARIABLE(double, VON_MISES_STRESS);

// Element controls (Properties): the Gauss rule order of the solid elements
// (0 or absent: the geometry's default).
TESSERA_DECLARE_VARIABLE(int, INTEGRATION_ORDER);
// Truss and membrane prestress (Kratos' names): the truss' axial PK2 prestress
// and the membrane's in-plane PK2 prestress (S11, S22, S12).
TESSERA_DECLARE_VARIABLE(double, TRUSS_PRESTRESS_PK2);
TESSERA_DECLARE_VARIABLE(Vector, PRESTRESS_VECTOR);
// J2 plasticity (Kratos' names): initial yield stress, linear hardening modulus,
// saturation yield stress and exponent of the exponential hardening.
TESSERA_DECLARE_VARIABLE(double, YIELD_STRESS);
TESSERA_DECLARE_VARIABLE(double, ISOTROPIC_HARDENING_MODULUS);
TESSERA_DECLARE_VARIABLE(double, EXPONENTIAL_SATURATION_YIELD_STRESS);
TESSERA_DECLARE_VARIABLE(double, HARDENING_EXPONENT);
// Plasticity results at the integration points (Kratos' names): the committed
// equivalent plastic strain alpha, and the plastic strain tensor (3 x 3; eps_p
// for small strains, E_p = (Cp - I)/2 for the finite-strain laws).
TESSERA_DECLARE_VARIABLE(double, EQUIVALENT_PLASTIC_STRAIN);
TESSERA_DECLARE_VARIABLE(Matrix, PLASTIC_STRAIN_TENSOR);

}  // namespace tessera::structural
