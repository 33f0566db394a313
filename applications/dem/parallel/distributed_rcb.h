// Recursive coordinate bisection of points spread over the ranks, without
// gathering them: the boxes RecursiveCoordinateBisection (rcb_decomposition.h)
// gives all ranks' points together, bit for bit, while no rank holds more
// than its own points.
//
// A set's cut depends on its size, its extent per axis and the coordinates
// at two positions of its sorted order (the keys order only ties, whose
// coordinates are equal): the sizes are summed and the extents reduced over
// the ranks, and each of the two coordinates is the least value v with at
// least the position's count of points at or below v, found by halving an
// interval of the doubles' order (at most 64 halvings), the counts summed
// over the ranks. The sets of one level of the recursion are cut together,
// so a level costs three collectives for the sizes and extents and at most
// 64 for the cuts, each of a few values per set: O(log P) levels, no O(N)
// array on any rank.
#pragma once

#include <vector>

#include "applications/dem/parallel/rcb_decomposition.h"

namespace tessera {
class Communicator;
}

namespace tessera::dem {

// Collective: one box per part from every rank's `points` (any number, none
// included); `parts` and `weights` as in RecursiveCoordinateBisection, the
// same on every rank.
std::vector<RcbBox> DistributedRecursiveCoordinateBisection(const std::vector<Array3>& points,
                                                            int parts,
                                                            const std::vector<double>& weights,
                                                            const Communicator& communicator);

}  // namespace tessera::dem
