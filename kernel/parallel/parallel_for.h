// The OpenMP layer: parallel loops and reductions whose results do not depend
// on the number of threads.
//
// Reductions cut the range into fixed blocks (independent of the thread count),
// reduce each block in order, then combine the block results in order: the same
// floating-point operations happen in the same order for 1 or 64 threads.
#pragma once

#include <omp.h>

#include <cstddef>
#include <vector>

namespace tessera {

inline int ParallelThreads() { return omp_get_max_threads(); }
inline void SetParallelThreads(int n) { omp_set_num_threads(n > 0 ? n : 1); }

// body(i) for i in [0, n); iterations must be independent.
template <class Body>
void ParallelFor(std::size_t n, Body&& body) {
  const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < count; ++i) body(static_cast<std::size_t>(i));
}

// Deterministic reduction: returns init ⊕ map(0) ⊕ map(1) ⊕ ... with ⊕ = combine,
// grouped in blocks of `block` iterations.
template <class T, class Map, class Combine>
T ParallelReduce(std::size_t n, T init, Map&& map, Combine&& combine, std::size_t block = 1024) {
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<T> partial(blocks, init);
  const auto count = static_cast<std::ptrdiff_t>(blocks);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t b = 0; b < count; ++b) {
    const std::size_t begin = static_cast<std::size_t>(b) * block;
    const std::size_t end = std::min(n, begin + block);
    T value = init;
    for (std::size_t i = begin; i < end; ++i) value = combine(value, map(i));
    partial[static_cast<std::size_t>(b)] = value;
  }
  T result = init;
  for (const T& value : partial) result = combine(result, value);
  return result;
}

template <class Map>
double ParallelSum(std::size_t n, Map&& map) {
  return ParallelReduce(n, 0.0, std::forward<Map>(map), [](double a, double b) { return a + b; });
}

}  // namespace tessera
