// Spatial order of the particle rows: a permutation that puts spheres close in
// space close in memory, so that the contact pass reads its neighbours' rows
// from cache and most contacts stay inside one force block.
//
// Rows are keyed by their cell in a grid of the given size, in row-major order
// (x fastest, then y, then z), as a mesher numbers a lattice: a sphere's
// neighbours then lie in three sequential streams (its x-line of cells, the
// next y-line, the next z-plane) that the processor's prefetcher follows.
// Measured against the Morton (Z-order) curve, in one process with
// applications/dem/benchmarks/dem_option_ab.py --option sort (2026-11-26):
// equal on the inlet-filled mixer (sorted / unsorted 0.66 against 0.68) and
// better on meshed lattices (packed bed 0.99 against 1.05, lattice mixer
// 0.97 against 0.95). Rows with the same key keep their relative order, so
// the order is deterministic and independent of the number of threads.
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
