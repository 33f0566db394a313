// The ghost layer's tests on a rank's RCB box in a periodic domain
// (PeriodicDomainOption under MPI, distributed_dem.h): whether a centre lies
// within a layer of a box at its nearest periodic image, whether it lies
// a layer deep inside a box, so that no other box is within a layer of it,
// and whether two boxes come within a reach of each other (the ranks a
// migration exchanges with).
//
// The centres are wrapped into the periodic box (the strategy wraps them
// every step); the RCB boxes tile all space (outer sides ±infinity), so on a
// periodic axis a box is clipped to the period, and one that spans it (both
// outer sides infinite) has every centre within any layer: a rank whose box
// spans a direction holds its own spheres' images there itself, and gets no
// ghost of its own (one copy per key and rank: no duplicate ghost).
//
// A box's image one period away is tested by the distances to the faces of
// the periodic box, not by shifting the centre by a period: the thresholds
// of the two tests are then the same sums (low + layer, high - layer), so a
// centre deep inside one box is, with the same rounding, outside the layer
// of every other box (the owner's and a ghost's holder's decisions agree).
// Without a periodic box both are WithinLayer's tests.
#pragma once

#include <algorithm>

#include "applications/dem/parallel/rcb_decomposition.h"
#include "applications/dem/utilities/periodic_box.h"

namespace tessera::dem {

// Whether x lies within `layer` (> 0) of box b, at x's nearest image.
inline bool WithinPeriodicLayer(const RcbBox& b, const Array3& x, double layer,
                                const PeriodicBox& box) {
  if (!box.active) return WithinLayer(b, x, layer);
  for (int k = 0; k < 3; ++k) {
    if (x[k] >= b.low[k] - layer && x[k] < b.high[k] + layer) continue;
    if (!box.axis[k]) return false;
    // x + L within the layer above b (x near the low face, b's top the
    // gap (high - b.high) below the high face), or x - L within the layer
    // below b (x near the high face).
    const double above = (box.low[k] + layer) - (box.high[k] - std::min(b.high[k], box.high[k]));
    const double below = (box.high[k] - layer) + (std::max(b.low[k], box.low[k]) - box.low[k]);
    if (x[k] < above || x[k] >= below) continue;
    return false;
  }
  return true;
}

// Whether x lies at least `layer` inside box b at every image (no other box
// of a tiling is then within `layer` of x).
inline bool DeepInsidePeriodic(const RcbBox& b, const Array3& x, double layer,
                               const PeriodicBox& box) {
  if (!box.active) return WithinLayer(b, x, -layer);
  for (int k = 0; k < 3; ++k) {
    double low = b.low[k], high = b.high[k];
    if (box.axis[k]) {
      // Spanning the period: no other box across this axis.
      if (low <= box.low[k] && high >= box.high[k]) continue;
      low = std::max(low, box.low[k]), high = std::min(high, box.high[k]);
    }
    if (!(x[k] >= low + layer && x[k] < high - layer)) return false;
  }
  return true;
}

// Whether boxes a and b come within `reach` of each other on every axis, at
// any periodic image of b. On a periodic axis both are first clipped to the
// period (the centres are wrapped into it; an outer box's infinite side
// would otherwise reach every image), then b is shifted by up to two
// periods (a centre and its partner may each be one image away). Generous
// by design: it chooses whom a migration talks to, and a box too many
// costs one empty message.
inline bool BoxesWithinReach(const RcbBox& a, const RcbBox& b, double reach,
                             const PeriodicBox& box) {
  for (int k = 0; k < 3; ++k) {
    const bool periodic = box.active && box.axis[k];
    double a_low = a.low[k], a_high = a.high[k], b_low = b.low[k], b_high = b.high[k];
    if (periodic) {
      a_low = std::max(a_low, box.low[k]), a_high = std::min(a_high, box.high[k]);
      b_low = std::max(b_low, box.low[k]), b_high = std::min(b_high, box.high[k]);
    }
    const double period = periodic ? box.Length(k) : 0.0;
    bool near = false;
    for (int shift = periodic ? -2 : 0; shift <= (periodic ? 2 : 0) && !near; ++shift)
      near = a_low - reach < b_high + shift * period && b_low + shift * period < a_high + reach;
    if (!near) return false;
  }
  return true;
}

}  // namespace tessera::dem
