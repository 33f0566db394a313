// FreeDofReduction: the global sums a convergence criterion takes over the free
// dofs of a distributed system, where each rank holds its own equations and
// copies (ghosts) of its neighbours' at shared nodes. Each free dof counts once,
// on the rank that owns it, and the ranks' partial sums are added in
// ascending rank order (the same bits on every rank). A serial builder has
// none, and the criteria then keep their own serial sums.
#pragma once

#include <cstddef>

#include "kernel/core/types.h"

namespace tessera {

class DofSet;

class FreeDofReduction {
 public:
  virtual ~FreeDofReduction() = default;
  // The number of free dofs over all ranks.
  virtual std::size_t GlobalFreeDofs() const = 0;
  // sum of v[eq]^2 over the owned free equations of every rank (v: local
  // vector, free equations first). Collective.
  virtual double SquaredNorm(const Vector& v) const = 0;
  // The same of the free dofs' current values. Collective.
  virtual double SquaredNormOfValues(const DofSet& dofs) const = 0;
};

}  // namespace tessera
