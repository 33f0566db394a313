// Dense linear solves for the small systems of the cluster impact solver
// (at most a few hundred unknowns): Gaussian elimination with partial
// pivoting, which the thesis (003, §4.2) found necessary where its iterative
// sparse solvers failed on the ill-conditioned impact Jacobians.
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace tessera::dem::nonsmooth {

// Solves A x = b in place (A: n x n row-major, destroyed; b becomes x).
// Returns false when a pivot vanishes (singular to working precision).
inline bool SolveDense(std::vector<double>& a, std::vector<double>& b, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    double best = std::abs(a[k * n + k]);
    for (std::size_t r = k + 1; r < n; ++r)
      if (std::abs(a[r * n + k]) > best) best = std::abs(a[r * n + k]), p = r;
    if (!(best > 0.0)) return false;
    if (p != k) {
      for (std::size_t c = 0; c < n; ++c) std::swap(a[k * n + c], a[p * n + c]);
      std::swap(b[k], b[p]);
    }
    const double inv = 1.0 / a[k * n + k];
    for (std::size_t r = k + 1; r < n; ++r) {
      const double f = a[r * n + k] * inv;
      if (f == 0.0) continue;
      for (std::size_t c = k; c < n; ++c) a[r * n + c] -= f * a[k * n + c];
      b[r] -= f * b[k];
    }
  }
  for (std::size_t k = n; k-- > 0;) {
    double s = b[k];
    for (std::size_t c = k + 1; c < n; ++c) s -= a[k * n + c] * b[c];
    b[k] = s / a[k * n + k];
  }
  return true;
}

}  // namespace tessera::dem::nonsmooth
