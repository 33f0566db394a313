// Time-of-impact location for the event-driven (hard-sphere) mode (thesis
// 003 §4.1.3): the first instant at which two spheres in
// free flight, or a sphere and a fixed plane, touch.
//
// Under a uniform gravity g both spheres of a pair fall alike, so their
// relative motion is uniform: |dx + dv t| = r_i + r_j is a quadratic in t,
// solved exactly. A sphere against a plane (point p, unit normal n towards
// the sphere) has gap(t) = (x + v t + g t^2/2 - p).n - r, also a quadratic.
// The thesis instead shortens the step by overlap / approach speed and
// iterates (Fig. 4.4); `RefineTimeOfImpact` does that for any gap function
// the caller integrates, and the closed forms are its reference.
#pragma once

#include <functional>

#include "kernel/core/array3.h"

namespace tessera::dem::nonsmooth {

// The earliest t >= 0 with the spheres touching and approaching; +infinity if
// none. Overlapping spheres that still approach give 0.
double PairTimeOfImpact(const Array3& xi, const Array3& vi, double ri, const Array3& xj,
                        const Array3& vj, double rj);

// The earliest t >= 0 at which the sphere reaches the plane moving towards it
// (a sphere on the plane that leaves it: its return under gravity).
double PlaneTimeOfImpact(const Array3& x, const Array3& v, double r, const Array3& gravity,
                         const Array3& point, const Array3& normal);

// The thesis' iteration: from a step `dt` after which gap(dt) < 0, repeat
// t -= gap(t) / rate(t) (rate: d gap/dt, negative while approaching) until the
// correction is below `tolerance`. Returns the located time.
double RefineTimeOfImpact(const std::function<double(double)>& gap,
                          const std::function<double(double)>& rate, double dt, double tolerance,
                          int max_iterations = 100);

}  // namespace tessera::dem::nonsmooth
