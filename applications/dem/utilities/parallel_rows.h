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
