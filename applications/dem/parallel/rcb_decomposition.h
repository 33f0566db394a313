// Recursive coordinate bisection (RCB) of particle centres into one box per
// rank: the set is cut along the axis of its largest extent into two sets of
// sizes in proportion to the ranks on each side (or to their weights: a
// time-balanced run's measured speeds), and each side is cut again until
// every part has one rank. Points are ordered by their coordinate on
// the axis, ties broken by their key (the particle's global key), so the cut
// is the same on every rank and every run. The boxes tile space: the outer
// sides are open (±infinity), so that every point has exactly one owner.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernel/core/array3.h"

namespace tessera::dem {

struct RcbBox {
  Array3 low{}, high{};  // owner of x: low <= x < high on every axis
};

// One box per part (part k for rank k); `parts` >= 1. `weights`: empty (each
// part an equal share of the points) or one positive weight per part (part
// k's share of the points is weights[k] / their sum).
std::vector<RcbBox> RecursiveCoordinateBisection(const std::vector<Array3>& points,
                                                 const std::vector<std::int64_t>& keys, int parts,
                                                 const std::vector<double>& weights = {});

// The part whose box holds x.
int RcbOwner(const std::vector<RcbBox>& boxes, const Array3& x);

// Whether x lies within `layer` of box b (in the box widened by `layer` on every side).
inline bool WithinLayer(const RcbBox& b, const Array3& x, double layer) {
  for (int k = 0; k < 3; ++k)
    if (x[k] < b.low[k] - layer || x[k] >= b.high[k] + layer) return false;
  return true;
}

}  // namespace tessera::dem
