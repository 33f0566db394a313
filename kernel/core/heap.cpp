// ReleaseFreedHeapMemory (see heap.h), and glibc's large-block policy put back
// at load time.
#include "kernel/core/heap.h"

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

// A library PETSc links (SuperLU_DIST 8, when it is loaded) turns glibc's
// mapping of large blocks off (M_MMAP_MAX 0) and its trimming of the heap's
// top off (M_TRIM_THRESHOLD -1): every block freed, of any size, then stays
// resident. An implicit solve's transients (the sparsity pattern, equation id
// lists) are hundreds of MiB: they stayed in the process' peak (the static
// cantilever: 206 MiB). This runs after that library's initialiser (the
// kernel depends on it, so it starts first) and puts back glibc's usual
// steady state: blocks from 32 MiB up mapped on their own and unmapped when
// freed (32 MiB: the most glibc's adaptive threshold rises to, so smaller
// blocks, such as the DEM search's lists, come from the heap as before), the
// heap's top trimmed beyond 64 MiB free.
struct LargeBlocksMapped {
  LargeBlocksMapped() {
    mallopt(M_MMAP_MAX, 65536);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
  }
};
const LargeBlocksMapped large_blocks_mapped;

}  // namespace
#endif

}  // namespace tessera
