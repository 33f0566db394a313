// The exact local Signorini-Coulomb solver (local_coulomb_solver.h).
#include "applications/dem/nonsmooth/local_coulomb_solver.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tessera::dem::nonsmooth {

bool IsIsotropicDiagonal(const Matrix3& w) {
  const double scale = std::abs(w[0]) + std::abs(w[4]) + std::abs(w[8]);
  const double tol = 1e-13 * scale;
  return std::abs(w[1]) <= tol && std::abs(w[2]) <= tol && std::abs(w[3]) <= tol &&
         std::abs(w[5]) <= tol && std::abs(w[6]) <= tol && std::abs(w[7]) <= tol &&
         std::abs(w[4] - w[8]) <= tol;
}

namespace {

// Projection of P onto the cone |P_T| <= mu P_N.
Array3 ProjectOntoCone(const Array3& p, double mu) {
  const double pt = PlaneNorm(p[1], p[2]);
  if (pt <= mu * p[0]) return p;
  if (mu * pt <= -p[0]) return {0.0, 0.0, 0.0};
  const double pn = (p[0] + mu * pt) / (1.0 + mu * mu);
  const double s = mu * pn / pt;
  return {pn, s * p[1], s * p[2]};
}

// Sliding with unit slip-impulse direction (c, s) in the tangent plane: the
// normal impulse from U_N = 0 and the tangential velocity it leaves.
struct Slide {
  double pn = -1.0;
  double ut1 = 0.0, ut2 = 0.0;
};
Slide SlideAlong(const Matrix3& w, const Array3& b, double mu, double c, double s) {
  Slide out;
  const double denom = w[0] + mu * (w[1] * c + w[2] * s);
  if (!(denom > 0.0)) return out;
  out.pn = -b[0] / denom;
  out.ut1 = b[1] + out.pn * (w[3] + mu * (w[4] * c + w[5] * s));
  out.ut2 = b[2] + out.pn * (w[6] + mu * (w[7] * c + w[8] * s));
  return out;
}

}  // namespace

LocalSolution SolveLocalCoulomb(const Matrix3& w, const Array3& b, double mu) {
  LocalSolution out;
  if (b[0] >= 0.0) return out;  // separating without impulse: P = 0 satisfies the law
  if (IsIsotropicDiagonal(w)) {
    const double pn = -b[0] / w[0];
    double p1 = -b[1] / w[4], p2 = -b[2] / w[4];
    const double pt = PlaneNorm(p1, p2);
    out.status = LocalStatus::kStick;
    if (pt > mu * pn) {
      const double s = pt > 0.0 ? mu * pn / pt : 0.0;
      p1 *= s, p2 *= s;
      out.status = LocalStatus::kSlip;
    }
    out.impulse = {pn, p1, p2};
    return out;
  }
  // Stick: U = 0.
  Array3 p;
  if (Solve3(w, -b, p) && p[0] >= 0.0 && PlaneNorm(p[1], p[2]) <= mu * p[0]) {
    out.impulse = p;
    out.status = LocalStatus::kStick;
    return out;
  }
  if (mu == 0.0) {
    out.impulse = {-b[0] / w[0], 0.0, 0.0};
    out.status = LocalStatus::kSlip;
    return out;
  }
  // Slide: find the angle phi of d with d x U_T(d) = 0 and d . U_T(d) <= 0.
  const auto cross = [&](double phi, Slide& sl) {
    const double c = std::cos(phi), s = std::sin(phi);
    sl = SlideAlong(w, b, mu, c, s);
    return c * sl.ut2 - s * sl.ut1;
  };
  constexpr int kSamples = 72;
  const double step = 2.0 * std::numbers::pi / kSamples;
  double best_residual = INFINITY;
  Array3 best{};
  Slide a_sl, b_sl;
  double fa = cross(0.0, a_sl);
  for (int k = 0; k < kSamples; ++k) {
    double lo = k * step, hi = (k + 1) * step;
    double flo = fa;
    Slide lo_sl = a_sl;
    double fhi = cross(hi, b_sl);
    fa = fhi, a_sl = b_sl;
    if (lo_sl.pn < 0.0 || b_sl.pn < 0.0 || (flo > 0.0) == (fhi > 0.0)) continue;
    for (int it = 0; it < 100 && hi - lo > 1e-15; ++it) {
      const double mid = 0.5 * (lo + hi);
      Slide m_sl;
      const double fm = cross(mid, m_sl);
      if ((fm > 0.0) == (flo > 0.0))
        lo = mid, flo = fm;
      else
        hi = mid;
    }
    const double phi = 0.5 * (lo + hi);
    Slide sl;
    cross(phi, sl);
    const double c = std::cos(phi), s = std::sin(phi);
    if (sl.pn < 0.0 || c * sl.ut1 + s * sl.ut2 > 0.0) continue;  // slip must oppose the impulse
    const Array3 cand{sl.pn, mu * sl.pn * c, mu * sl.pn * s};
    const double r = LocalLawResidual(w, b, mu, cand);
    if (r < best_residual) best_residual = r, best = cand;
  }
  if (best_residual < INFINITY) {
    out.impulse = best;
    out.status = LocalStatus::kSlip;
    return out;
  }
  // No root found (degenerate W): the projected stick impulse.
  out.impulse = ProjectOntoCone(p, mu);
  out.status = LocalStatus::kSlip;
  return out;
}

double LocalLawResidual(const Matrix3& w, const Array3& b, double mu, const Array3& p) {
  Array3 u = b + Multiply(w, p);
  const double rho = 1.0 / w[0];
  // De Saxce's modified velocity U + mu |U_T| n makes the Coulomb law the
  // projection fixed point P = proj_K(P - rho U^) exactly.
  u[0] += mu * PlaneNorm(u[1], u[2]);
  const Array3 trial = p - rho * u;
  const Array3 proj = ProjectOntoCone(trial, mu);
  return Norm(p - proj) / rho;
}

}  // namespace tessera::dem::nonsmooth
