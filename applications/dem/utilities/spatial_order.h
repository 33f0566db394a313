// Spatial order of the particle rows: a permutation that puts spheres close in
// space close in memory, so that the contact pass reads its neighbours' rows
// from cache and most contacts stay inside one force block.
//
// Rows are keyed by the Morton (Z-order) code of their cell in a grid of the
// given size: cells near in space mostly get near codes, in all three
// directions at once (a row-major cell number keeps only x neighbours close).
// Rows with the same key keep their relative order, so the order is
// deterministic and independent of the number of threads.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/core/array3.h"

namespace tessera::dem {

// The new order of the rows: row order[k] moves to position k. `group` keeps
// rows together: rows with the same nonzero group (the members of a rigid
// cluster) stay consecutive and in their order, placed where their first row
// falls; group 0 is a row on its own. `cell_size` > 0.
std::vector<std::uint32_t> SpatialOrder(const std::vector<Array3>& position, double cell_size,
                                        const std::vector<std::uint32_t>& group);

}  // namespace tessera::dem
