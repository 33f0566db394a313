// ParallelRows: the kernel's ParallelFor for the DEM loops, run serially below
// a size where a parallel region costs more than the loop (and where, on a busy
// machine, waiting for a descheduled thread at every region of every step
// dominates small runs). The body must not depend on the thread count either way.
#pragma once

#include <cstddef>
#include <utility>

#include "kernel/parallel/parallel_for.h"

namespace tessera::dem {

inline constexpr std::size_t kMinimumParallelRows = 512;

template <class Body>
void ParallelRows(std::size_t n, Body&& body) {
  if (n < kMinimumParallelRows || ParallelThreads() == 1) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  ParallelFor(n, std::forward<Body>(body));
}

// body(b) for the `blocks` blocks of a loop over `rows` rows: in parallel over
// blocks under the same rule as ParallelRows (the decision depends on the rows,
// not on how few blocks there are). Blocks must be independent. They are
// handed out one at a time as threads become free: blocks differ in work
// (a dense bottom layer against a loose top), and which thread runs a block
// does not change what it computes.
template <class Body>
void ParallelBlocks(std::size_t rows, std::size_t blocks, Body&& body) {
  if (rows < kMinimumParallelRows || ParallelThreads() == 1 || blocks < 2) {
    for (std::size_t b = 0; b < blocks; ++b) body(b);
    return;
  }
  const auto count = static_cast<std::ptrdiff_t>(blocks);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t b = 0; b < count; ++b) body(static_cast<std::size_t>(b));
}

}  // namespace tessera::dem

namespace tessera::dem {

// Sum of map(i) over [0, n), bitwise equal to the kernel's ParallelSum (whose
// fixed blocks make it thread-count independent); serial below one block.
template <class Map>
double SumRows(std::size_t n, Map&& map) {
  if (n <= 1024) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += map(i);
    return sum;
  }
  return ParallelSum(n, std::forward<Map>(map));
}

}  // namespace tessera::dem
