// Recursive coordinate bisection (see rcb_decomposition.h).
#include "applications/dem/parallel/rcb_decomposition.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kernel/core/error.h"

namespace tessera::dem {
namespace {

// Cuts points[ids] (the box `box`) into parts first .. first + parts - 1,
// appended to `out` in part order.
void Bisect(const std::vector<Array3>& points, const std::vector<std::int64_t>& keys,
            const std::vector<double>& weights, std::vector<std::uint32_t> ids, const RcbBox& box,
            int first, int parts, std::vector<RcbBox>& out) {
  if (parts == 1) {
    out.push_back(box);
    return;
  }
  const int low_parts = parts / 2;
  // The axis of the largest extent of the points (of the box where it is
  // finite and there are no points).
  int axis = 0;
  double widest = -1.0;
  for (int k = 0; k < 3; ++k) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::uint32_t i : ids) lo = std::min(lo, points[i][k]), hi = std::max(hi, points[i][k]);
    const double extent = ids.empty() ? 0.0 : hi - lo;
    if (extent > widest) widest = extent, axis = k;
  }
  std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
    return points[a][axis] < points[b][axis] ||
           (points[a][axis] == points[b][axis] && keys[a] < keys[b]);
  });
  // Counts in proportion to the ranks on each side (integer arithmetic: the
  // same everywhere), or to their weights.
  const std::size_t n = ids.size();
  std::size_t low_count = n * static_cast<std::size_t>(low_parts) / parts;
  if (!weights.empty()) {
    double low_weight = 0.0, all_weight = 0.0;
    for (int k = first; k < first + parts; ++k)
      (k < first + low_parts ? low_weight : all_weight) += weights[k];
    all_weight += low_weight;
    low_count = std::min(n, static_cast<std::size_t>(
                                std::llround(static_cast<double>(n) * low_weight / all_weight)));
  }
  double cut;
  if (n == 0) {
    cut = 0.0;
  } else if (low_count == 0) {
    cut = points[ids[0]][axis];
  } else if (low_count == n) {
    cut = std::nextafter(points[ids[n - 1]][axis], std::numeric_limits<double>::infinity());
  } else {
    // Midway between the last point below and the first above; equal
    // coordinates (a tie) put both on the upper side.
    cut = 0.5 * (points[ids[low_count - 1]][axis] + points[ids[low_count]][axis]);
  }
  cut = std::clamp(cut, box.low[axis], box.high[axis]);
  RcbBox low_box = box, high_box = box;
  low_box.high[axis] = cut;
  high_box.low[axis] = cut;
  std::vector<std::uint32_t> low_ids, high_ids;
  for (std::uint32_t i : ids) (points[i][axis] < cut ? low_ids : high_ids).push_back(i);
  Bisect(points, keys, weights, std::move(low_ids), low_box, first, low_parts, out);
  Bisect(points, keys, weights, std::move(high_ids), high_box, first + low_parts, parts - low_parts,
         out);
}

}  // namespace

std::vector<RcbBox> RecursiveCoordinateBisection(const std::vector<Array3>& points,
                                                 const std::vector<std::int64_t>& keys, int parts,
                                                 const std::vector<double>& weights) {
  if (parts < 1) TESSERA_ERROR("RecursiveCoordinateBisection: parts must be >= 1, got ", parts);
  if (!weights.empty()) {
    if (weights.size() != static_cast<std::size_t>(parts))
      TESSERA_ERROR("RecursiveCoordinateBisection: ", parts, " parts but ", weights.size(),
                    " weights");
    for (double w : weights)
      if (!(w > 0.0 && std::isfinite(w)))
        TESSERA_ERROR("RecursiveCoordinateBisection: weights must be positive and finite, got ", w);
  }
  if (keys.size() != points.size())
    TESSERA_ERROR("RecursiveCoordinateBisection: ", points.size(), " points but ", keys.size(),
                  " keys");
  std::vector<std::uint32_t> ids(points.size());
  std::iota(ids.begin(), ids.end(), 0u);
  const double inf = std::numeric_limits<double>::infinity();
  RcbBox all{{-inf, -inf, -inf}, {inf, inf, inf}};
  std::vector<RcbBox> out;
  out.reserve(parts);
  Bisect(points, keys, weights, std::move(ids), all, 0, parts, out);
  return out;
}

int RcbOwner(const std::vector<RcbBox>& boxes, const Array3& x) {
  for (std::size_t r = 0; r < boxes.size(); ++r)
    if (WithinLayer(boxes[r], x, 0.0)) return static_cast<int>(r);
  TESSERA_ERROR("RcbOwner: the point (", x[0], ", ", x[1], ", ", x[2],
                ") lies in no box (a non-finite position?)");
}

}  // namespace tessera::dem
