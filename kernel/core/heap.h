// The C library's heap: giving freed memory back to the operating system.
//
// Freed blocks stay in the heap as resident memory, for reuse without page
// faults. Tessera fixes glibc's policy at load (heap.cpp): no block is mapped
// on its own and the heap's top is never trimmed by itself, whatever a linked
// library set (SuperLU_DIST, which Debian's PETSc links, sets the same). The
// multigrid setup of an implicit solve allocates and frees hundreds of MiB:
// every large block mapped anew in 4 KiB pages (glibc's mapping from 32 MiB)
// cost the static cantilever about 3 s on one process and 10 s on two ranks
// (host F, a VM where a page fault costs ~20 us). Memory goes back by:
// - ReleaseFreedHeapMemory(): the heap's free pages (glibc's malloc_trim). A
//   call costs a fraction of a millisecond, but every page it returns faults
//   in again when reused, so a caller makes it only when its arrays have
//   shrunk a lot (the DEM search: when its lists halve).
// - LargeBlocksMapped: while one lives, blocks from 32 MiB are mapped on
//   their own, so that freeing one unmaps it and returns nothing else. For
//   large arrays freed for good while the process goes on growing (the
//   distributed builder's local matrix, freed once PETSc holds its copy).
// - MapHugeBlock: a block of its own in transparent huge pages, unmapped
//   when freed; mapped anew it faults in per 2 MiB (PETSc's large blocks).
#pragma once

#include <cstddef>

namespace tessera {

// Returns the free pages of the heap to the system; a no-op where the C
// library offers no way to (anything but glibc).
void ReleaseFreedHeapMemory();

// Blocks from 32 MiB allocated while one of these lives (in any thread) are
// mapped on their own and unmapped when freed, wherever they are freed.
// Scopes nest within one thread; a no-op on C libraries other than glibc.
class LargeBlocksMapped {
 public:
  explicit LargeBlocksMapped(bool active = true);
  ~LargeBlocksMapped();
  LargeBlocksMapped(const LargeBlocksMapped&) = delete;
  LargeBlocksMapped& operator=(const LargeBlocksMapped&) = delete;

 private:
  bool active_;
};

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
