// Giving freed heap memory back to the operating system.
//
// A solver that replaces large arrays from time to time (a DEM search
// rebuilding its contact lists) frees blocks of megabytes that the C library's
// heap keeps as resident memory: with glibc the threshold above which a block
// is mapped on its own (and unmapped when freed) rises to the size of the last
// such block freed, so later blocks of that size come from the main heap, whose
// freed pages stay resident. ReleaseFreedHeapMemory() hands those pages back
// (glibc's malloc_trim, which also releases whole free pages inside the heap).
// A call costs a fraction of a millisecond, so a caller makes it only when its
// arrays have shrunk a lot (the DEM search: when its lists halve). heap.cpp
// also undoes, at load, a linked library's switching off of glibc's mapping of
// large blocks (see there).
#pragma once

namespace tessera {

// Returns the free pages of the heap to the system; a no-op where the C
// library offers no way to (anything but glibc).
void ReleaseFreedHeapMemory();

}  // namespace tessera
