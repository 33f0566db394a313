// Recursive coordinate bisection (see rcb_decomposition.h).
#include "applications/dem/parallel/rcb_decomposition.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kernel/core/error.h"

namespace tessera::dem {
namespace {

// The lower side's count of the sorted set `ids` (coordinates on `axis`)
// by load (RcbLoadBalance): the number of its first points whose summed
// load comes nearest the lower parts' share of the total (the fewer points
// on a tie; by count, RcbLowCount, where the total is 0), then moved within
// the balance's window to cross fewer links. `member`: 1 for the set's points.
std::size_t LowCountByLoad(const std::vector<Array3>& points, const RcbLoadBalance& balance,
                           const std::vector<double>& weights,
                           const std::vector<std::uint32_t>& ids, const std::vector<char>& member,
                           int axis, int first, int parts) {
  const std::size_t n = ids.size();
  // prefix[m]: the summed load of the first m points.
  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + balance.loads[ids[i]];
  const double total = prefix[n];
  if (!(total > 0.0)) return RcbLowCount(n, first, parts, weights);
  const auto [low_weight, all_weight] = RcbSideWeights(first, parts, weights);
  const double target = total * low_weight / all_weight;
  // The first count whose prefix reaches the target, or the one before it
  // where that comes nearer.
  std::size_t m = 0;
  while (m < n && prefix[m + 1] < target) ++m;
  const std::size_t nearest =
      m == n ? n : (prefix[m + 1] - target < target - prefix[m] ? m + 1 : m);
  if (balance.links.empty() || !(balance.window > 0.0) || n < 2) return nearest;
  const auto value = [&](std::size_t i) { return points[ids[i]][axis]; };
  // The links within the set as intervals [lo, hi] on the axis: a cut c
  // (lower side x < c) crosses one where lo < c <= hi.
  std::vector<double> lows, highs;
  for (const auto& link : balance.links) {
    if (!member[link[0]] || !member[link[1]]) continue;
    const double a = points[link[0]][axis], b = points[link[1]][axis];
    lows.push_back(std::min(a, b)), highs.push_back(std::max(a, b));
  }
  if (lows.empty()) return nearest;
  std::sort(lows.begin(), lows.end());
  std::sort(highs.begin(), highs.end());
  const auto crossings = [&](double c) {
    return (std::lower_bound(lows.begin(), lows.end(), c) - lows.begin()) -
           (std::lower_bound(highs.begin(), highs.end(), c) - highs.begin());
  };
  const double slack = balance.window * total;
  // Candidates: the counts whose prefix load lies within the slack of the
  // target and whose cut falls between two distinct coordinates (a cut at
  // a tie would put the tied points above it, another count).
  std::size_t best = nearest;
  auto best_cross = crossings(RcbCut(n, nearest, value, -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::infinity()));
  double best_off = std::abs(prefix[nearest] - target);
  for (std::size_t m = 1; m < n; ++m) {
    const double off = std::abs(prefix[m] - target);
    if (off > slack || value(m - 1) == value(m) || m == nearest) continue;
    const auto cross = crossings(0.5 * (value(m - 1) + value(m)));
    if (cross < best_cross || (cross == best_cross && off < best_off))
      best = m, best_cross = cross, best_off = off;
  }
  return best;
}

// Cuts points[ids] (the box `box`) into parts first .. first + parts - 1,
// appended to `out` in part order.
void Bisect(const std::vector<Array3>& points, const std::vector<std::int64_t>& keys,
            const std::vector<double>& weights, const RcbLoadBalance& balance,
            std::vector<char>& member, std::vector<std::uint32_t> ids, const RcbBox& box, int first,
            int parts, std::vector<RcbBox>& out) {
  if (parts == 1) {
    out.push_back(box);
    return;
  }
  const int low_parts = parts / 2;
  // The axis of the largest extent of the points (0 where there are none).
  const double inf = std::numeric_limits<double>::infinity();
  Array3 least{inf, inf, inf}, greatest{-inf, -inf, -inf};
  for (std::uint32_t i : ids)
    for (int k = 0; k < 3; ++k)
      least[k] = std::min(least[k], points[i][k]),
      greatest[k] = std::max(greatest[k], points[i][k]);
  const int axis = RcbAxis(ids.size(), least, greatest);
  std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
    return points[a][axis] < points[b][axis] ||
           (points[a][axis] == points[b][axis] && keys[a] < keys[b]);
  });
  const std::size_t n = ids.size();
  std::size_t low_count;
  if (balance.loads.empty()) {
    low_count = RcbLowCount(n, first, parts, weights);
  } else {
    for (std::uint32_t i : ids) member[i] = 1;
    low_count = LowCountByLoad(points, balance, weights, ids, member, axis, first, parts);
    for (std::uint32_t i : ids) member[i] = 0;
  }
  const double cut = RcbCut(
      n, low_count, [&](std::size_t i) { return points[ids[i]][axis]; }, box.low[axis],
      box.high[axis]);
  RcbBox low_box = box, high_box = box;
  low_box.high[axis] = cut;
  high_box.low[axis] = cut;
  std::vector<std::uint32_t> low_ids, high_ids;
  for (std::uint32_t i : ids) (points[i][axis] < cut ? low_ids : high_ids).push_back(i);
  Bisect(points, keys, weights, balance, member, std::move(low_ids), low_box, first, low_parts,
         out);
  Bisect(points, keys, weights, balance, member, std::move(high_ids), high_box, first + low_parts,
         parts - low_parts, out);
}

}  // namespace

void CheckRcbParts(const char* who, int parts, const std::vector<double>& weights) {
  if (parts < 1) TESSERA_ERROR(who, ": parts must be >= 1, got ", parts);
  if (weights.empty()) return;
  if (weights.size() != static_cast<std::size_t>(parts))
    TESSERA_ERROR(who, ": ", parts, " parts but ", weights.size(), " weights");
  for (double w : weights)
    if (!(w > 0.0 && std::isfinite(w)))
      TESSERA_ERROR(who, ": weights must be positive and finite, got ", w);
}

std::pair<double, double> RcbSideWeights(int first, int parts, const std::vector<double>& weights) {
  const int low_parts = parts / 2;
  if (weights.empty()) return {static_cast<double>(low_parts), static_cast<double>(parts)};
  double low_weight = 0.0, all_weight = 0.0;
  for (int k = first; k < first + parts; ++k)
    (k < first + low_parts ? low_weight : all_weight) += weights[k];
  return {low_weight, all_weight + low_weight};
}

std::size_t RcbLowCount(std::size_t n, int first, int parts, const std::vector<double>& weights) {
  // Counts in proportion to the ranks on each side (integer arithmetic: the
  // same everywhere), or to their weights.
  if (weights.empty()) return n * static_cast<std::size_t>(parts / 2) / parts;
  const auto [low_weight, all_weight] = RcbSideWeights(first, parts, weights);
  return std::min(
      n, static_cast<std::size_t>(std::llround(static_cast<double>(n) * low_weight / all_weight)));
}

std::vector<RcbBox> RecursiveCoordinateBisection(const std::vector<Array3>& points,
                                                 const std::vector<std::int64_t>& keys, int parts,
                                                 const std::vector<double>& weights,
                                                 const RcbLoadBalance& balance) {
  CheckRcbParts("RecursiveCoordinateBisection", parts, weights);
  if (keys.size() != points.size())
    TESSERA_ERROR("RecursiveCoordinateBisection: ", points.size(), " points but ", keys.size(),
                  " keys");
  const std::vector<double>& loads = balance.loads;
  if (!loads.empty() && loads.size() != points.size())
    TESSERA_ERROR("RecursiveCoordinateBisection: ", points.size(), " points but ", loads.size(),
                  " loads");
  for (double load : loads)
    if (!(load >= 0.0 && std::isfinite(load)))
      TESSERA_ERROR("RecursiveCoordinateBisection: loads must be finite and >= 0, got ", load);
  for (const auto& link : balance.links)
    if (link[0] >= points.size() || link[1] >= points.size())
      TESSERA_ERROR("RecursiveCoordinateBisection: a link joins points ", link[0], " and ", link[1],
                    " of ", points.size());
  if (!(balance.window >= 0.0 && balance.window < 0.5))
    TESSERA_ERROR("RecursiveCoordinateBisection: the window must lie in [0, 0.5), got ",
                  balance.window);
  std::vector<std::uint32_t> ids(points.size());
  std::iota(ids.begin(), ids.end(), 0u);
  const double inf = std::numeric_limits<double>::infinity();
  RcbBox all{{-inf, -inf, -inf}, {inf, inf, inf}};
  std::vector<RcbBox> out;
  out.reserve(parts);
  std::vector<char> member(balance.loads.empty() ? 0 : points.size(), 0);
  Bisect(points, keys, weights, balance, member, std::move(ids), all, 0, parts, out);
  return out;
}

int RcbOwner(const std::vector<RcbBox>& boxes, const Array3& x) {
  for (std::size_t r = 0; r < boxes.size(); ++r)
    if (WithinLayer(boxes[r], x, 0.0)) return static_cast<int>(r);
  TESSERA_ERROR("RcbOwner: the point (", x[0], ", ", x[1], ", ", x[2],
                ") lies in no box (a non-finite position?)");
}

}  // namespace tessera::dem
