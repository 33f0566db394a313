// The C library's heap: giving freed memory back to the operating system.
//
// Freed blocks stay in the heap as resident memory, for reuse without page
// faults. Tessera fixes glibc's policy at load (heap.cpp): no block is mapped
// on its own and the heap's top is never trimmed by itself, whatever a linked
// library set (SuperLU_DIST, which Debian's PETSc links, sets the same). A
// freed block is therefore reused without faulting its pages in again: the
// multigrid setup of an implicit solve allocates and frees hundreds of MiB,
// and mapping every large block anew cost the static cantilever 3 s on one
// process and 10 s on two ranks (host F, a VM where a page fault costs
// ~15 us). Memory freed for good goes back by one of two means:
// - ReleaseFreedHeapMemory() hands the heap's free pages back (glibc's
//   malloc_trim). A call costs a fraction of a millisecond, but every freed
//   page it returns faults in again when reused, so a caller makes it only
//   when its arrays have shrunk a lot (the DEM search: when its lists halve).
// - LargeBlocksMapped, while it lives, maps blocks from 32 MiB on their own:
//   freeing such a block unmaps it at once, and nothing else is returned.
//   For large arrays that are freed for good while the process goes on
//   growing (the distributed builder's local matrix, freed once PETSc holds
//   its copy).
#pragma once

namespace tessera {

// Returns the free pages of the heap to the system; a no-op where the C
// library offers no way to (anything but glibc).
void ReleaseFreedHeapMemory();

// Blocks from 32 MiB allocated while one of these lives (in any thread) are
// mapped on their own and unmapped when freed, wherever they are freed.
// Scopes nest; a no-op on C libraries other than glibc.
class LargeBlocksMapped {
 public:
  explicit LargeBlocksMapped(bool active = true);
  ~LargeBlocksMapped();
  LargeBlocksMapped(const LargeBlocksMapped&) = delete;
  LargeBlocksMapped& operator=(const LargeBlocksMapped&) = delete;

 private:
  bool active_;
};

}  // namespace tessera
