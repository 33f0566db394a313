// A contact's share of a sphere's stress moment Σ sym(r ⊗ F) (DEM_STRESS_TENSOR),
// r = arm n from the sphere's centre: one formula for the bonds
// (ContinuumBonds::AddStressMoments) and the contacts (particle_stress.cpp).
#pragma once

#include "kernel/core/array3.h"

namespace tessera::dem {

// Adds sym(arm n ⊗ F) to a row's nine moments `s` (row-major 3x3).
inline void AddStressMoment(double* s, double arm, const Array3& n, const Array3& force) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) s[3 * r + c] += 0.5 * arm * (n[r] * force[c] + n[c] * force[r]);
}

}  // namespace tessera::dem
