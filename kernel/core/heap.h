// The C library's heap: giving freed memory back to the operating system.
//
// Tessera puts glibc's large-block policy back at load (heap.cpp), after a
// linked library switched it off (SuperLU_DIST, which Debian's PETSc links:
// M_MMAP_MAX 0, M_TRIM_THRESHOLD -1, so every freed block stayed resident):
// blocks from 32 MiB are mapped on their own and unmapped when freed, the
// heap's top is trimmed beyond 64 MiB free. Blocks below 32 MiB (the DEM
// search's lists) come from the heap, whose freed pages stay resident:
// - ReleaseFreedHeapMemory() hands them back (glibc's malloc_trim). A call
//   costs a fraction of a millisecond, but every page it returns faults in
//   again when reused, so a caller makes it only when its arrays have shrunk
//   a lot (the DEM search: when its lists halve).
// - A mapped block faults in per 4 KiB page each time it is allocated: ~20 us
//   a fault on host F (a VM). Blocks allocated and freed again and again
//   (the ~1 GB of PETSc's multigrid setup) come from MapHugeBlock, in
//   transparent huge pages: a fault per 2 MiB.
#pragma once

#include <cstddef>

namespace tessera {

// Returns the free pages of the heap to the system; a no-op where the C
// library offers no way to (anything but glibc).
void ReleaseFreedHeapMemory();

// Large blocks of their own in transparent huge pages (Linux; elsewhere plain
// heap blocks): one page fault per 2 MiB instead of per 4 KiB, and the pages go
// back when the block is freed. For the transients of a linear solver's setup
// (PETSc's allocations from 32 MiB, petsc_linear_solver.cpp), which are
// allocated and freed again and again. MapHugeBlock gives zeroed memory,
// aligned to 2 MiB, or nullptr when the system refuses;
// FreeHugeBlock(p) returns false, doing nothing, when p is not such a block.
void* MapHugeBlock(std::size_t bytes);
bool FreeHugeBlock(void* p);
// The size asked for a block of MapHugeBlock's, 0 for any other pointer.
std::size_t HugeBlockSize(const void* p);

// Asks for transparent huge pages over the 2 MiB pages wholly inside
// [p, p + bytes) (no-op elsewhere): for large arrays about to be written.
void AdviseHugePages(void* p, std::size_t bytes);

}  // namespace tessera
