// ReleaseFreedHeapMemory and LargeBlocksMapped (see heap.h), and the heap
// policy fixed at load.
#include "kernel/core/heap.h"

#include <atomic>
#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tessera {

void ReleaseFreedHeapMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

#if defined(__GLIBC__)
namespace {

constexpr int kMappedFrom = 32 << 20;  // bytes; blocks below stay in the heap
std::atomic<int> mapped_scopes{0};

// Runs after the initialisers of the libraries the kernel links (they start
// first), so its settings are the ones in force whatever those set.
// SuperLU_DIST 8 sets the same two (M_MMAP_MAX 0, M_TRIM_THRESHOLD -1); without
// it glibc would map blocks from an adaptive threshold and trim the top.
struct HeapPolicy {
  HeapPolicy() {
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
  }
};
const HeapPolicy heap_policy;

}  // namespace

LargeBlocksMapped::LargeBlocksMapped(bool active) : active_(active) {
  if (active_ && mapped_scopes.fetch_add(1) == 0) {
    mallopt(M_MMAP_THRESHOLD, kMappedFrom);
    mallopt(M_MMAP_MAX, 65536);
  }
}

LargeBlocksMapped::~LargeBlocksMapped() {
  if (active_ && mapped_scopes.fetch_sub(1) == 1) mallopt(M_MMAP_MAX, 0);
}
#else
LargeBlocksMapped::LargeBlocksMapped(bool active) : active_(active) {}
LargeBlocksMapped::~LargeBlocksMapped() = default;
#endif

}  // namespace tessera
