// An error found inside a parallel loop (a contact of a pair of materials
// without relation), recorded to be thrown after the loop
// (ExplicitSolverStrategy::ThrowPendingError). Internal to the strategy.
#pragma once

#include <atomic>
#include <cstdint>

namespace tessera::dem {

// Records the first (lowest) index of an error found inside a parallel loop.
inline void RecordError(std::int64_t& slot, std::int64_t index) {
  std::atomic_ref<std::int64_t> ref(slot);
  std::int64_t current = ref.load();
  while ((current < 0 || index < current) && !ref.compare_exchange_weak(current, index)) {
  }
}

}  // namespace tessera::dem
