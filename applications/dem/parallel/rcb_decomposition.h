// Recursive coordinate bisection (RCB) of particle centres into one box per
// rank: the set is cut along the axis of its largest extent into two sets of
// sizes (or summed point loads: RcbLoadBalance) in proportion to the ranks
// on each side (or to their weights: a time-balanced run's measured
// speeds), and each side is cut again until
// every part has one rank. Points are ordered by their coordinate on
// the axis, ties broken by their key (the particle's global key), so the cut
// is the same on every rank and every run. The boxes tile space: the outer
// sides are open (±infinity), so that every point has exactly one owner.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "kernel/core/array3.h"

namespace tessera::dem {

struct RcbBox {
  Array3 low{}, high{};  // owner of x: low <= x < high on every axis
};

// A bisection by load rather than by count (a Moreau-Jean run's: the
// contacts, whose sweeps are the work to share, each on the sphere that
// heads it, and the contacts themselves as links, which couple the ranks'
// sweeps where a cut crosses them).
struct RcbLoadBalance {
  // Empty (each point counts one) or one finite load >= 0 per point: each
  // part gets its share of the set's summed load instead of its points (a
  // set whose points all have load 0 is cut by counts).
  std::vector<double> loads;
  // Pairs of points (indices into the points) a cut should rather not
  // separate, and how far from its share (a fraction of the set's load) a
  // cut's lower side may go to separate fewer of them: among the cuts whose
  // lower side's load lies within `window` of its share (the nearest one
  // always among them), the one crossing the fewest links, then the
  // nearest the share. Without links or with window 0: the nearest.
  std::vector<std::array<std::uint32_t, 2>> links;
  double window = 0.0;
};

// One box per part (part k for rank k); `parts` >= 1. `weights`: empty (each
// part an equal share of the points) or one positive weight per part (part
// k's share of the points is weights[k] / their sum). `balance`: by load
// (above); by default each point counts one.
std::vector<RcbBox> RecursiveCoordinateBisection(const std::vector<Array3>& points,
                                                 const std::vector<std::int64_t>& keys, int parts,
                                                 const std::vector<double>& weights = {},
                                                 const RcbLoadBalance& balance = {});

// What both bisections (this one, distributed_rcb.h) share: the checks of
// `parts` and `weights` (an error naming `who`), and the number of a set's n
// points that go to the lower side when it is cut for parts first ..
// first + parts - 1 (the lower parts / 2 of them).
void CheckRcbParts(const char* who, int parts, const std::vector<double>& weights);
// The lower parts' weight and all parts' (the parts' counts where `weights` is empty).
std::pair<double, double> RcbSideWeights(int first, int parts, const std::vector<double>& weights);
std::size_t RcbLowCount(std::size_t n, int first, int parts, const std::vector<double>& weights);
// The axis of a set's largest extent (the lowest of equal ones; 0 where the
// set is empty), from its points' least and greatest coordinates.
inline int RcbAxis(std::size_t n, const Array3& least, const Array3& greatest) {
  int axis = 0;
  double widest = -1.0;
  for (int k = 0; k < 3; ++k) {
    const double extent = n == 0 ? 0.0 : greatest[k] - least[k];
    if (extent > widest) widest = extent, axis = k;
  }
  return axis;
}
// The cut of a set of n points of which the lowest low_count go below it:
// value(i) is the i-th coordinate in ascending order (asked for 0, n - 1,
// low_count - 1 and low_count only); within the set's box [low, high].
template <class ValueAt>
double RcbCut(std::size_t n, std::size_t low_count, ValueAt value, double low, double high) {
  double cut;
  if (n == 0) {
    cut = 0.0;
  } else if (low_count == 0) {
    cut = value(0);
  } else if (low_count == n) {
    cut = std::nextafter(value(n - 1), std::numeric_limits<double>::infinity());
  } else {
    // Midway between the last point below and the first above; equal
    // coordinates (a tie) put both on the upper side.
    cut = 0.5 * (value(low_count - 1) + value(low_count));
  }
  return std::clamp(cut, low, high);
}

// The part whose box holds x.
int RcbOwner(const std::vector<RcbBox>& boxes, const Array3& x);

// Whether x lies within `layer` of box b (in the box widened by `layer` on every side).
inline bool WithinLayer(const RcbBox& b, const Array3& x, double layer) {
  for (int k = 0; k < 3; ++k)
    if (x[k] < b.low[k] - layer || x[k] >= b.high[k] + layer) return false;
  return true;
}

}  // namespace tessera::dem
