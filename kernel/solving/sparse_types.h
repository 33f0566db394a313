// Sparse matrix type of the solving stack and the helpers the builder and the
// strategies share: a parallel loop that carries the first exception out of
// the OpenMP region (an exception may not cross it).
#pragma once

#include <Eigen/SparseCore>
#include <exception>
#include <mutex>

#include "kernel/core/types.h"
#include "kernel/parallel/parallel_for.h"

namespace tessera {

// Compressed sparse row storage: row-major rows are what a row-wise assembly
// fills and what Eigen multiplies in parallel.
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

// body(i) for i in [0, n) in parallel; the first exception thrown by any
// iteration is rethrown after the loop (the other iterations still run).
template <class Body>
void ParallelForChecked(std::size_t n, Body&& body) {
  std::exception_ptr first;
  std::mutex mutex;
  ParallelFor(n, [&](std::size_t i) {
    try {
      body(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!first) first = std::current_exception();
    }
  });
  if (first) std::rethrow_exception(first);
}

}  // namespace tessera
