// Spatial order of the particle rows (see spatial_order.h).
#include "applications/dem/utilities/spatial_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "kernel/core/error.h"

namespace tessera::dem {
namespace {

// 21 bits per cell coordinate: a key of 63 bits.
constexpr int kBitsPerAxis = 21;

}  // namespace

std::array<int, 3> AxesByCellCount(const std::array<std::int64_t, 3>& cells) {
  std::array<int, 3> axis{0, 1, 2};
  std::stable_sort(axis.begin(), axis.end(), [&](int a, int b) { return cells[a] < cells[b]; });
  return axis;
}

std::vector<std::uint32_t> SpatialOrder(const std::vector<Array3>& position, double cell_size,
                                        const std::vector<std::uint32_t>& group) {
  if (!(cell_size > 0.0) || !std::isfinite(cell_size))
    TESSERA_ERROR("SpatialOrder: the cell size must be a positive number, got ", cell_size);
  if (group.size() != position.size())
    TESSERA_ERROR("SpatialOrder: ", position.size(), " positions but ", group.size(), " groups");
  const std::size_t n = position.size();
  if (n > std::numeric_limits<std::uint32_t>::max())
    TESSERA_ERROR("SpatialOrder: more rows than 32-bit row numbers hold");
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  Array3 low{kInfinity, kInfinity, kInfinity}, high{-kInfinity, -kInfinity, -kInfinity};
  for (const Array3& x : position)
    for (int k = 0; k < 3; ++k)
      if (std::isfinite(x[k])) {
        low[k] = std::min(low[k], x[k]);
        high[k] = std::max(high[k], x[k]);
      }
  for (int k = 0; k < 3; ++k)
    if (low[k] == kInfinity) low[k] = high[k] = 0.0;
  constexpr double kLargest = static_cast<double>((1u << kBitsPerAxis) - 1);
  // Cells per axis as the neighbour search's grid counts them.
  std::array<std::int64_t, 3> cells;
  for (int k = 0; k < 3; ++k)
    cells[k] =
        static_cast<std::int64_t>(std::min(std::floor((high[k] - low[k]) / cell_size), kLargest)) +
        1;
  const std::array<int, 3> axis = AxesByCellCount(cells);
  auto cell = [&](double x, int k) -> std::uint64_t {
    const double c = std::floor((x - low[k]) / cell_size);
    if (!(c >= 0.0)) return 0;  // NaN: any cell does, the row only moves
    return static_cast<std::uint64_t>(std::min(c, kLargest));
  };

  // Each row sorts by the key of its group's first row, then by that row (so a
  // group's members stay together), then by itself.
  struct Entry {
    std::uint64_t key;
    std::uint32_t lead, row;
  };
  std::vector<Entry> entries(n);
  std::unordered_map<std::uint32_t, std::uint32_t> lead_of_group;
  for (std::size_t i = 0; i < n; ++i) {
    const auto row = static_cast<std::uint32_t>(i);
    std::uint32_t lead = row;
    if (group[i] != 0) lead = lead_of_group.try_emplace(group[i], row).first->second;
    const Array3& x = position[lead];
    const std::uint64_t key = cell(x[axis[2]], axis[2]) << (2 * kBitsPerAxis) |
                              cell(x[axis[1]], axis[1]) << kBitsPerAxis | cell(x[axis[0]], axis[0]);
    entries[i] = {key, lead, row};
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.key != b.key) return a.key < b.key;
    if (a.lead != b.lead) return a.lead < b.lead;
    return a.row < b.row;
  });
  std::vector<std::uint32_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = entries[k].row;
  return order;
}

}  // namespace tessera::dem
