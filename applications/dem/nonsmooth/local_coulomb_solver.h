// The exact local solver of one contact of a non-smooth (NSCD) contact
// problem: given the contact's 3x3 Delassus block W (local frame n, t1, t2)
// and the velocity it would have with no impulse of its own, b, find the
// impulse P with U = b + W P satisfying
//   0 <= U_N  _|_  P_N >= 0                       (Signorini, velocity level)
//   |P_T| <= mu P_N; |P_T| < mu P_N => U_T = 0;
//   |P_T| = mu P_N => U_T = -a P_T, a >= 0          (isotropic Coulomb cone).
// b already carries the impact law's shift (b_N + e_n U_N^-, b_T + e_t U_T^-),
// so the same solver serves Newton restitution (Moreau 1988; Jean 1999).
//
// Where W is diagonal with equal tangential entries (spheres and planar
// walls: W = (1/m_i + 1/m_j) 1 + (r_i^2/I_i + r_j^2/I_j)(1 - n n^T)) the
// solution is explicit: the normal and tangential parts decouple and the
// sliding impulse is the radial projection onto the cone. Otherwise (rigid
// clusters, fixed components, shape-function weights) the stick solution is
// tried first and the sliding one found by the slip direction: for a unit
// tangent d, U_N = 0 gives P_N(d), and d must make U_T(d) antiparallel to d,
// a root in the angle of d located by sampling and bisection.
#pragma once

#include <cmath>

#include "applications/dem/nonsmooth/contact_frame.h"

namespace tessera::dem::nonsmooth {

// |(a, b)|: the tangential norm of an impulse or a velocity. Not std::hypot,
// whose guard against overflow made a quarter of an NLGS sweep's time;
// impulses and velocities are far from the 1e154 where the squares overflow.
inline double PlaneNorm(double a, double b) { return std::sqrt(a * a + b * b); }

enum class LocalStatus : unsigned char { kOpen = 0, kStick = 1, kSlip = 2 };

struct LocalSolution {
  Array3 impulse{};  // local (P_N, P_T1, P_T2)
  LocalStatus status = LocalStatus::kOpen;
};

LocalSolution SolveLocalCoulomb(const Matrix3& w, const Array3& b, double mu);

// True where W is diagonal with equal tangential entries to round-off (the
// explicit case).
bool IsIsotropicDiagonal(const Matrix3& w);

// The residual of the law at (P, U = b + W P), in velocity units:
// |P - proj_K(P - U^/W_NN)| W_NN with De Saxce's modified velocity
// U^ = U + mu |U_T| n (zero exactly where the law holds).
double LocalLawResidual(const Matrix3& w, const Array3& b, double mu, const Array3& p);

}  // namespace tessera::dem::nonsmooth
