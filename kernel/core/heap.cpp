// ReleaseFreedHeapMemory and the huge-page blocks (see heap.h), and glibc's
// large-block policy put back at load.
#include "kernel/core/heap.h"

#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ where the C library is glibc
#include <mutex>
#include <unordered_map>

#if defined(__linux__)
#include <sys/mman.h>
#endif

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
// resident (the static cantilever on 2 ranks: +370 MiB, the freed local
// matrices and the mesh read's arrays under small blocks). This runs after
// that library's initialiser (the kernel depends on it, so it starts first)
// and puts back glibc's usual steady state: blocks from 32 MiB up mapped on
// their own (32 MiB: the most glibc's adaptive threshold rises to), the
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

#if defined(__linux__) && defined(MADV_HUGEPAGE)
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// The live blocks: start -> (bytes asked, bytes mapped). A solver setup holds
// tens of them at most.
struct HugeBlocks {
  std::mutex mutex;
  std::unordered_map<const void*, std::pair<std::size_t, std::size_t>> live;
};
HugeBlocks& Blocks() {
  static HugeBlocks* blocks = new HugeBlocks();  // never destroyed: frees may come at exit
  return *blocks;
}

}  // namespace

void* MapHugeBlock(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const std::size_t length = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  // One huge page more, to start on a 2 MiB boundary; head and tail unmapped.
  void* raw =
      mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  const std::uintptr_t tail = start + length + kHugePage - (aligned + length);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + length), tail);
  void* block = reinterpret_cast<void*>(aligned);
  madvise(block, length, MADV_HUGEPAGE);
  HugeBlocks& blocks = Blocks();
  const std::lock_guard<std::mutex> lock(blocks.mutex);
  blocks.live.emplace(block, std::make_pair(bytes, length));
  return block;
}

bool FreeHugeBlock(void* p) {
  if (p == nullptr) return false;
  std::size_t length = 0;
  {
    HugeBlocks& blocks = Blocks();
    const std::lock_guard<std::mutex> lock(blocks.mutex);
    const auto it = blocks.live.find(p);
    if (it == blocks.live.end()) return false;
    length = it->second.second;
    blocks.live.erase(it);
  }
  munmap(p, length);
  return true;
}

std::size_t HugeBlockSize(const void* p) {
  HugeBlocks& blocks = Blocks();
  const std::lock_guard<std::mutex> lock(blocks.mutex);
  const auto it = blocks.live.find(p);
  return it == blocks.live.end() ? 0 : it->second.first;
}

void AdviseHugePages(void* p, std::size_t bytes) {
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (start + kHugePage - 1) / kHugePage * kHugePage;
  const std::uintptr_t last = (start + bytes) / kHugePage * kHugePage;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}
#else
void* MapHugeBlock(std::size_t bytes) { return bytes == 0 ? nullptr : std::calloc(bytes, 1); }
bool FreeHugeBlock(void*) { return false; }
std::size_t HugeBlockSize(const void*) { return 0; }
void AdviseHugePages(void*, std::size_t) {}
#endif

}  // namespace tessera
