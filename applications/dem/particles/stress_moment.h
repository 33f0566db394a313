// A contact's share of a sphere's stress moment Σ sym(r ⊗ F) (DEM_STRESS_TENSOR),
// r = arm n from the sphere's centre: one formula for the bonds
// (ContinuumBonds::AddStressMoments) and the contacts (particle_stress.cpp).
#pragma once

#include "kernel/core/array3.h"

namespace tessera::dem {

// The six entries of a symmetric 3x3 a row keeps: (r, c) of entry k.
inline constexpr int kStressMomentSize = 6;
inline constexpr int kStressMomentRow[kStressMomentSize] = {0, 1, 2, 0, 0, 1};
inline constexpr int kStressMomentColumn[kStressMomentSize] = {0, 1, 2, 1, 2, 2};

// Adds sym(arm n ⊗ F) to a row's six moments `s` (xx, yy, zz, xy, xz, yz):
// entry (r, c) 0.5 arm (n_r F_c + n_c F_r), the same bits as (c, r).
inline void AddStressMoment(double* s, double arm, const Array3& n, const Array3& force) {
  for (int k = 0; k < kStressMomentSize; ++k) {
    const int r = kStressMomentRow[k], c = kStressMomentColumn[k];
    s[k] += 0.5 * arm * (n[r] * force[c] + n[c] * force[r]);
  }
}

// A pair contact's shares: sym(arm_i n ⊗ F) to the first sphere's moments
// `si`, sym(arm_j n ⊗ F) to the second's `sj` (its r = -arm_j n and force -F
// give the same product); the bits of two AddStressMoment calls.
inline void AddPairStressMoments(double* si, double* sj, double arm_i, double arm_j,
                                 const Array3& n, const Array3& force) {
  for (int k = 0; k < kStressMomentSize; ++k) {
    const int r = kStressMomentRow[k], c = kStressMomentColumn[k];
    const double sym = n[r] * force[c] + n[c] * force[r];
    si[k] += 0.5 * arm_i * sym;
    sj[k] += 0.5 * arm_j * sym;
  }
}

}  // namespace tessera::dem
