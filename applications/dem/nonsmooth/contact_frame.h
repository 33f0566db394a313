// The local frame of a contact (n, t1, t2) and the 3x3 algebra the
// non-smooth solvers need: a right-handed orthonormal basis completing a unit
// normal, world <-> local components, and small matrices stored row-major.
#pragma once

#include <array>
#include <cmath>

#include "kernel/core/array3.h"

namespace tessera::dem::nonsmooth {

using Matrix3 = std::array<double, 9>;  // row-major

// Two unit tangents with (n, t1, t2) right-handed. The first is built from the
// world axis least aligned with n, so that the basis is a continuous function
// of n away from the switch and identical for equal normals.
inline void TangentBasis(const Array3& n, Array3& t1, Array3& t2) {
  const double ax = std::abs(n[0]), ay = std::abs(n[1]), az = std::abs(n[2]);
  Array3 a{0.0, 0.0, 0.0};
  if (ax <= ay && ax <= az)
    a[0] = 1.0;
  else if (ay <= az)
    a[1] = 1.0;
  else
    a[2] = 1.0;
  t1 = Cross(n, a);
  t1 = t1 / Norm(t1);
  t2 = Cross(n, t1);
}

struct ContactFrame {
  Array3 n, t1, t2;
  Array3 ToLocal(const Array3& w) const { return {Dot(n, w), Dot(t1, w), Dot(t2, w)}; }
  Array3 ToWorld(const Array3& l) const { return l[0] * n + l[1] * t1 + l[2] * t2; }
};

inline ContactFrame FrameFromNormal(const Array3& n) {
  ContactFrame f;
  f.n = n;
  TangentBasis(n, f.t1, f.t2);
  return f;
}

inline Array3 Multiply(const Matrix3& a, const Array3& x) {
  return {a[0] * x[0] + a[1] * x[1] + a[2] * x[2], a[3] * x[0] + a[4] * x[1] + a[5] * x[2],
          a[6] * x[0] + a[7] * x[1] + a[8] * x[2]};
}

// R A R^T for the rows of R = (n, t1, t2): a world matrix in the local frame.
inline Matrix3 ToLocal(const ContactFrame& f, const Matrix3& a) {
  const Array3 rows[3] = {f.n, f.t1, f.t2};
  Matrix3 out{};
  for (int r = 0; r < 3; ++r) {
    const Array3 ar = Multiply(a, rows[r]);  // A symmetric: (R A)_r = A rows[r]
    for (int c = 0; c < 3; ++c) out[3 * r + c] = Dot(rows[c], ar);
  }
  return out;
}

// Solves a x = b for a 3x3 matrix (Cramer's rule; the callers' matrices are
// symmetric positive definite Delassus blocks). Returns false if singular.
inline bool Solve3(const Matrix3& a, const Array3& b, Array3& x) {
  const double c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8],
               c02 = a[3] * a[7] - a[4] * a[6];
  const double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
  if (!(std::abs(det) > 0.0)) return false;
  const double inv = 1.0 / det;
  const Matrix3 adj = {c00, a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                       c01, a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                       c02, a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
  x = Multiply(adj, b) * inv;
  return true;
}

}  // namespace tessera::dem::nonsmooth
