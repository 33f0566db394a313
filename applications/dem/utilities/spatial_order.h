// Spatial order of the particle rows: a permutation that puts spheres close in
// space close in memory, so that the contact pass reads its neighbours' rows
// from cache and most contacts stay inside one force block.
//
// Rows are keyed by their cell in a grid of the given size, in row-major order
// as a mesher numbers a lattice: a sphere's neighbours then lie in three
// sequential streams (its line of cells, the next line, the next plane) that
// the processor's prefetcher follows. The axis with the fewest cells runs
// fastest and the one with the most slowest (AxesByCellCount): a contact
// reaches a plane of cells ahead, and across the longest axis the planes hold
// the fewest spheres, so the rows the contact pass keeps in cache are fewest
// (the helical mixer, a drum 0.4 m long and a bed 0.12 m deep: about 700
// spheres a plane across its axis, 2,300 across the depth). The neighbour
// search numbers its cells in the same order (neighbour_search.h).
// Against the Morton (Z-order) curve (dem_option_ab.py --option sort) this
// order was as good on a random packing (the inlet-filled mixer) and the
// better one on meshed lattices. Rows with the same key keep their relative order, so
// the order is deterministic and independent of the number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernel/core/array3.h"

namespace tessera::dem {

// The axes of a grid with `cells` cells per axis, from the fewest cells
// (fastest in a row-major numbering) to the most (slowest); equal counts keep
// the order x, y, z.
std::array<int, 3> AxesByCellCount(const std::array<std::int64_t, 3>& cells);

// The new order of the rows: row order[k] moves to position k. `group` keeps
// rows together: rows with the same nonzero group (the members of a rigid
// cluster) stay consecutive and in their order, placed where their first row
// falls; group 0 is a row on its own. `cell_size` > 0.
std::vector<std::uint32_t> SpatialOrder(const std::vector<Array3>& position, double cell_size,
                                        const std::vector<std::uint32_t>& group);

}  // namespace tessera::dem
