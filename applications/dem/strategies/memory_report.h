// The memory the DEM strategy's arrays hold, by part, in bytes of capacity
// (what the vectors have reserved, not what they use):
//   rows           the particle rows (ParticleStorage)
//   pair_contacts  the particle-pair candidate list with its histories, its
//                  per-particle index and the cross-block force slots
//   wall_contacts  the particle-face candidate list with its histories and
//                  per-evaluation columns
//   search         the neighbour searches' grids (main and inlet)
//   scratch        the lists a search fills and reuses (candidates, matches)
//   other          per-particle dissipation and damping powers
// The nodal database, elements and the faces are the model part's, not in here.
// A process's resident memory is larger: the heap keeps freed blocks.
#pragma once

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace tessera::dem {

struct MemoryReport {
  std::size_t rows = 0;
  std::size_t pair_contacts = 0;
  std::size_t wall_contacts = 0;
  std::size_t search = 0;
  std::size_t scratch = 0;
  std::size_t other = 0;
  std::size_t Total() const {
    return rows + pair_contacts + wall_contacts + search + scratch + other;
  }
};

// Every part with its name (the keys of GetMemoryReport()).
inline constexpr std::array<std::pair<const char*, std::size_t MemoryReport::*>, 6> kMemoryTerms{{
    {"rows", &MemoryReport::rows},
    {"pair_contacts", &MemoryReport::pair_contacts},
    {"wall_contacts", &MemoryReport::wall_contacts},
    {"search", &MemoryReport::search},
    {"scratch", &MemoryReport::scratch},
    {"other", &MemoryReport::other},
}};

// Bytes of capacity of the vectors given.
template <class... T>
std::size_t VectorBytes(const std::vector<T>&... columns) {
  return ((columns.capacity() * sizeof(T)) + ... + 0);
}

}  // namespace tessera::dem
