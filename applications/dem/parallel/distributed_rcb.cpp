// Recursive coordinate bisection over the ranks (see distributed_rcb.h).
#include "applications/dem/parallel/distributed_rcb.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kernel/core/ordered_double.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {
namespace {

// A set of points still to be cut: its box and its parts first .. first + parts - 1.
struct PendingSet {
  RcbBox box;
  int first = 0, parts = 1;
};

// One coordinate sought: the least value with at least `count` of set
// `set`'s points at or below it, within [low, high] of the doubles' order.
struct Search {
  std::size_t set = 0;
  std::int64_t count = 0;
  std::uint64_t low = 0, high = 0;
};

}  // namespace

std::vector<RcbBox> DistributedRecursiveCoordinateBisection(const std::vector<Array3>& points,
                                                            int parts,
                                                            const std::vector<double>& weights,
                                                            const Communicator& communicator) {
  CheckRcbParts("DistributedRecursiveCoordinateBisection", parts, weights);
  const double inf = std::numeric_limits<double>::infinity();
  const RcbBox all{{-inf, -inf, -inf}, {inf, inf, inf}};
  std::vector<RcbBox> boxes(static_cast<std::size_t>(parts), all);
  std::vector<PendingSet> sets;
  if (parts > 1) sets.push_back({all, 0, parts});
  // This rank's points' sets (kDone: in a finished box).
  constexpr std::size_t kDone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> set_of(points.size(), 0);
  while (!sets.empty()) {
    const std::size_t g = sets.size();
    // Sizes and extents of the sets over all ranks.
    std::vector<std::int64_t> size(g, 0);
    std::vector<double> least(3 * g, inf), greatest(3 * g, -inf);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::size_t s = set_of[i];
      if (s == kDone) continue;
      ++size[s];
      for (int k = 0; k < 3; ++k) {
        least[3 * s + k] = std::min(least[3 * s + k], points[i][k]);
        greatest[3 * s + k] = std::max(greatest[3 * s + k], points[i][k]);
      }
    }
    communicator.SumAll(size);
    communicator.MinAll(least);
    communicator.MaxAll(greatest);
    std::vector<int> axis(g);
    std::vector<std::size_t> low_count(g);
    for (std::size_t s = 0; s < g; ++s) {
      const auto n = static_cast<std::size_t>(size[s]);
      axis[s] = RcbAxis(n, Array3{least[3 * s], least[3 * s + 1], least[3 * s + 2]},
                        Array3{greatest[3 * s], greatest[3 * s + 1], greatest[3 * s + 2]});
      low_count[s] = RcbLowCount(n, sets[s].first, sets[s].parts, weights);
    }
    // This rank's coordinates of each set along its axis, ascending.
    std::vector<std::vector<double>> coordinates(g);
    for (std::size_t i = 0; i < points.size(); ++i)
      if (set_of[i] != kDone) coordinates[set_of[i]].push_back(points[i][axis[set_of[i]]]);
    for (std::vector<double>& c : coordinates) std::sort(c.begin(), c.end());
    // The coordinates at positions low_count - 1 and low_count where the cut
    // falls between points; all sets' searches halve together.
    std::vector<Search> searches;
    for (std::size_t s = 0; s < g; ++s) {
      const auto n = static_cast<std::size_t>(size[s]);
      if (low_count[s] == 0 || low_count[s] >= n) continue;
      const std::uint64_t low = OrderedBits(least[3 * s + axis[s]]);
      const std::uint64_t high = OrderedBits(greatest[3 * s + axis[s]]);
      for (std::size_t position : {low_count[s] - 1, low_count[s]})
        searches.push_back({s, static_cast<std::int64_t>(position) + 1, low, high});
    }
    std::vector<std::int64_t> at_or_below(searches.size());
    std::vector<std::uint64_t> middle(searches.size());
    while (std::any_of(searches.begin(), searches.end(),
                       [](const Search& q) { return q.low < q.high; })) {
      for (std::size_t q = 0; q < searches.size(); ++q) {
        const Search& search = searches[q];
        const std::vector<double>& c = coordinates[search.set];
        middle[q] = search.low + (search.high - search.low) / 2;
        at_or_below[q] =
            search.low < search.high
                ? std::upper_bound(c.begin(), c.end(), FromOrderedBits(middle[q])) - c.begin()
                : 0;
      }
      communicator.SumAll(at_or_below);
      for (std::size_t q = 0; q < searches.size(); ++q) {
        Search& search = searches[q];
        if (search.low == search.high) continue;
        if (at_or_below[q] >= search.count)
          search.high = middle[q];
        else
          search.low = middle[q] + 1;
      }
    }
    // Cut each set; a side of one part is a box, the others are cut next.
    std::vector<PendingSet> next;
    std::vector<double> cut(g);
    std::vector<std::size_t> low_set(g, kDone), high_set(g, kDone);
    std::size_t next_search = 0;
    for (std::size_t s = 0; s < g; ++s) {
      const PendingSet& set = sets[s];
      const auto n = static_cast<std::size_t>(size[s]);
      const std::size_t lows = low_count[s];
      const int k = axis[s];
      double below = 0.0, above = 0.0;
      if (lows > 0 && lows < n) {
        below = FromOrderedBits(searches[next_search].low);
        above = FromOrderedBits(searches[next_search + 1].low);
        next_search += 2;
      }
      // RcbCut asks for the least coordinate where no point goes below, the
      // greatest where all do, else for those at lows - 1 and lows.
      const auto value = [&](std::size_t i) {
        if (lows == 0) return least[3 * s + k];
        if (lows == n) return greatest[3 * s + k];
        return i < lows ? below : above;
      };
      cut[s] = RcbCut(n, lows, value, set.box.low[k], set.box.high[k]);
      const int low_parts = set.parts / 2;
      PendingSet low{set.box, set.first, low_parts};
      PendingSet high{set.box, set.first + low_parts, set.parts - low_parts};
      low.box.high[k] = cut[s];
      high.box.low[k] = cut[s];
      if (low.parts == 1) {
        boxes[static_cast<std::size_t>(low.first)] = low.box;
      } else {
        low_set[s] = next.size();
        next.push_back(low);
      }
      if (high.parts == 1) {
        boxes[static_cast<std::size_t>(high.first)] = high.box;
      } else {
        high_set[s] = next.size();
        next.push_back(high);
      }
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::size_t s = set_of[i];
      if (s != kDone) set_of[i] = points[i][axis[s]] < cut[s] ? low_set[s] : high_set[s];
    }
    sets = std::move(next);
  }
  return boxes;
}

}  // namespace tessera::dem
