// The Delassus operator W = H* M^-1 H of the non-smooth contact problem
// (Moreau 1988; Jean 1999), built block by block for the bodies the DEM
// application has: a rigid body seen through the contact's arm rho (a
// sphere, a sphere with fixed velocity components, a rigid cluster with its
// full inertia tensor) and a
// deformable body's nodes seen through the shape-function weights at the
// contact point (FE walls in the coupling application). A rigid wall adds
// nothing (infinite mass).
//
// Rigid body b with per-component inverse mass D_v and inverse inertia D_w
// (world axes): an impulse P at arm rho changes the point's velocity by
//   dv + dw x rho = D_v P - [rho]x D_w [rho]x P,
// so its block is W_b = D_v - [rho]x D_w [rho]x. A sphere (D_v = 1/m,
// D_w = 1/I) gives 1/m + r^2/I (1 - n n^T) for rho = -r n: diagonal in the
// contact frame, the explicit case of the local solver. Nodes with weights
// N_k and lumped masses m_k give sum_k N_k^2 / m_k 1. The contact's block is
// the sum over its two sides (the signs square away).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "applications/dem/nonsmooth/contact_frame.h"

namespace tessera::dem::nonsmooth {

// [a]x D [a]x for diagonal D (world): the rotational part of a rigid block.
inline Matrix3 RigidBodyBlock(const Array3& inv_mass, const Array3& inv_inertia,
                              const Array3& arm) {
  // Column k of -[a]x D [a]x: -a x (D (a x e_k)).
  Matrix3 w{};
  for (int k = 0; k < 3; ++k) {
    Array3 e{0.0, 0.0, 0.0};
    e[k] = 1.0;
    Array3 t = Cross(arm, e);
    t = {inv_inertia[0] * t[0], inv_inertia[1] * t[1], inv_inertia[2] * t[2]};
    const Array3 col = -Cross(arm, t);
    for (int r = 0; r < 3; ++r) w[3 * r + k] = col[r];
    w[4 * k] += inv_mass[k];
  }
  return w;
}

// The same for a full (symmetric) world inverse inertia J, a rigid cluster's
// R diag(1/I) R^T: D_v - [a]x J [a]x.
inline Matrix3 RigidBodyBlock(const Array3& inv_mass, const Matrix3& inv_inertia,
                              const Array3& arm) {
  Matrix3 w{};
  for (int k = 0; k < 3; ++k) {
    Array3 e{0.0, 0.0, 0.0};
    e[k] = 1.0;
    const Array3 t = Cross(arm, e);
    const Array3 col =
        -Cross(arm, Array3{inv_inertia[0] * t[0] + inv_inertia[1] * t[1] + inv_inertia[2] * t[2],
                           inv_inertia[3] * t[0] + inv_inertia[4] * t[1] + inv_inertia[5] * t[2],
                           inv_inertia[6] * t[0] + inv_inertia[7] * t[1] + inv_inertia[8] * t[2]});
    for (int r = 0; r < 3; ++r) w[3 * r + k] = col[r];
    w[4 * k] += inv_mass[k];
  }
  return w;
}

// The block of a deformable side: nodes with shape-function weights and
// lumped inverse masses (0 for a fixed node).
template <std::size_t N>
inline Matrix3 NodalBlock(const std::array<double, N>& weights,
                          const std::array<double, N>& inv_mass) {
  double s = 0.0;
  for (std::size_t k = 0; k < N; ++k) s += weights[k] * weights[k] * inv_mass[k];
  return {s, 0.0, 0.0, 0.0, s, 0.0, 0.0, 0.0, s};
}

// The same from a contact's node list (NonsmoothContacts): weights N_a,
// nodes slot[a] with per-component inverse masses (world axes; 0 for a fixed
// component): diag(sum_a N_a^2 / m_a,c).
inline Matrix3 NodalBlock(const double* weights, const std::uint32_t* slot, int count,
                          const std::vector<Array3>& inv_mass) {
  Array3 s{0.0, 0.0, 0.0};
  for (int a = 0; a < count; ++a) s += (weights[a] * weights[a]) * inv_mass[slot[a]];
  return {s[0], 0.0, 0.0, 0.0, s[1], 0.0, 0.0, 0.0, s[2]};
}

inline Matrix3 Add(const Matrix3& a, const Matrix3& b) {
  Matrix3 c;
  for (int k = 0; k < 9; ++k) c[k] = a[k] + b[k];
  return c;
}

}  // namespace tessera::dem::nonsmooth
