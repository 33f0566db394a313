// The periodic domain of a DEM run (PeriodicDomainOption: the bounding box,
// periodic along x, y and z as in Kratos; along x and y for 2D discs, which
// stay in their plane): a sphere leaving through one face comes back through
// the opposite one, and two spheres interact through the nearest of their
// periodic images (minimum image). That image is unique as long as every
// periodic side is longer than twice the largest contact reach, which the
// search checks (it needs three cells of 2 r_max + tolerance per side).
#pragma once

#include <array>
#include <cmath>

#include "kernel/core/array3.h"

namespace tessera::dem {

struct PeriodicBox {
  bool active = false;
  std::array<bool, 3> axis{true, true, true};  // which axes are periodic
  Array3 low{}, high{};

  double Length(int k) const { return high[k] - low[k]; }

  // d (x_j - x_i) to the nearest image of x_j.
  Array3 Nearest(Array3 d) const {
    for (int k = 0; k < 3; ++k) {
      if (!axis[k]) continue;
      const double length = Length(k);
      d[k] -= length * std::nearbyint(d[k] / length);
    }
    return d;
  }

  // x moved by whole periods into [low, high) along the periodic axes.
  Array3 Wrap(Array3 x) const {
    for (int k = 0; k < 3; ++k) {
      if (!axis[k]) continue;
      const double length = Length(k);
      if (x[k] < low[k] || x[k] >= high[k]) x[k] -= length * std::floor((x[k] - low[k]) / length);
      // Round-off can land a value just below low exactly on high.
      if (x[k] >= high[k]) x[k] = low[k];
    }
    return x;
  }
};

}  // namespace tessera::dem
