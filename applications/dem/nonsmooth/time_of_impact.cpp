// Time-of-impact location (time_of_impact.h).
#include "applications/dem/nonsmooth/time_of_impact.h"

#include <cmath>
#include <limits>

namespace tessera::dem::nonsmooth {

namespace {
constexpr double kNever = std::numeric_limits<double>::infinity();

// Smallest root >= 0 of a t^2 + b t + c (numerically stable form).
double SmallestNonNegativeRoot(double a, double b, double c) {
  if (a == 0.0) {
    if (b == 0.0) return kNever;
    const double t = -c / b;
    return t >= 0.0 ? t : kNever;
  }
  const double disc = b * b - 4.0 * a * c;
  if (disc < 0.0) return kNever;
  const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));
  double t1 = q / a, t2 = q != 0.0 ? c / q : t1;
  if (t1 > t2) std::swap(t1, t2);
  if (t1 >= 0.0) return t1;
  if (t2 >= 0.0) return t2;
  return kNever;
}
}  // namespace

double PairTimeOfImpact(const Array3& xi, const Array3& vi, double ri, const Array3& xj,
                        const Array3& vj, double rj) {
  const Array3 dx = xi - xj, dv = vi - vj;
  const double reach = ri + rj;
  const double c = Dot(dx, dx) - reach * reach;
  const double b = 2.0 * Dot(dx, dv);
  if (b >= 0.0) return kNever;  // not approaching
  if (c <= 0.0) return 0.0;     // touching or overlapping, approaching
  return SmallestNonNegativeRoot(Dot(dv, dv), b, c);
}

double PlaneTimeOfImpact(const Array3& x, const Array3& v, double r, const Array3& gravity,
                         const Array3& point, const Array3& normal) {
  const double gap = Dot(x - point, normal) - r;
  const double rate = Dot(v, normal), accel = Dot(gravity, normal);
  if (gap <= 0.0) {
    if (rate < 0.0) return 0.0;
    // On the plane and leaving it (just after a bounce): back when gravity
    // brings it down, the root of rate t + accel t^2/2 = 0 other than 0.
    return accel < 0.0 ? -2.0 * rate / accel : kNever;
  }
  return SmallestNonNegativeRoot(0.5 * accel, rate, gap);
}

double RefineTimeOfImpact(const std::function<double(double)>& gap,
                          const std::function<double(double)>& rate, double dt, double tolerance,
                          int max_iterations) {
  double t = dt;
  for (int k = 0; k < max_iterations; ++k) {
    const double r = rate(t);
    if (r == 0.0) break;
    const double correction = gap(t) / r;
    t -= correction;
    if (std::abs(correction) < tolerance) break;
  }
  return t;
}

}  // namespace tessera::dem::nonsmooth
