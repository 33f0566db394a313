// The start's clean-up of overlapping spheres (initial_overlaps.h).
#include "applications/dem/particles/initial_overlaps.h"

#include <algorithm>

namespace tessera::dem {
namespace {

Array3 Separation(const std::vector<Array3>& position, const PeriodicBox& periodic, std::uint32_t i,
                  std::uint32_t j) {
  const Array3 d = position[j] - position[i];
  return periodic.active ? periodic.Nearest(d) : d;
}

}  // namespace

std::vector<std::uint8_t> EmbeddedSpheres(const std::vector<std::uint32_t>& first,
                                          const std::vector<std::uint32_t>& second,
                                          const std::vector<Array3>& position,
                                          const std::vector<double>& radius,
                                          const std::vector<std::uint32_t>& cluster,
                                          const PeriodicBox& periodic, bool& any_deleted) {
  std::vector<std::uint8_t> keep(position.size(), 1);
  any_deleted = false;
  for (std::size_t c = 0; c < first.size(); ++c) {
    const std::uint32_t i = first[c], j = second[c];
    if (cluster[i] != 0 || cluster[j] != 0) continue;
    const double d = Norm(Separation(position, periodic, i, j));
    const double small = std::min(radius[i], radius[j]);
    const double big = std::max(radius[i], radius[j]);
    if (d + small <= big) {
      keep[radius[i] <= radius[j] ? i : j] = 0;
      any_deleted = true;
    }
  }
  return keep;
}

std::vector<Shrink> ShrinkOverlappingPairs(const std::vector<std::uint32_t>& first,
                                           const std::vector<std::uint32_t>& second,
                                           const std::vector<Array3>& position,
                                           const std::vector<std::uint32_t>& cluster,
                                           const PeriodicBox& periodic,
                                           std::vector<double>& radius) {
  std::vector<Shrink> shrinks;
  for (std::size_t c = 0; c < first.size(); ++c) {
    const std::uint32_t i = first[c], j = second[c];
    // A cluster keeps the spheres of its .clu geometry.
    if (cluster[i] != 0 || cluster[j] != 0) continue;
    const double d = Norm(Separation(position, periodic, i, j));
    const double sum = radius[i] + radius[j];
    if (d >= sum || d <= 0.0) continue;
    const double factor = d / sum;
    for (std::uint32_t k : {i, j}) {
      radius[k] *= factor;
      shrinks.push_back({k, factor});
    }
  }
  return shrinks;
}

}  // namespace tessera::dem
