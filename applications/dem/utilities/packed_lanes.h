// The permutation that packs the set lanes of a four-lane mask to the front,
// for the four-wide (AVX2) loops that keep only some lanes of a group: the
// touching test of the contact kernel and the search's cell visit. Loaded as
// one 16-byte vector, it is the index operand of a 32-bit lane permute.
#pragma once

#include <cstdint>

namespace tessera::dem {

struct PackedLanes {
  // For each 4-bit mask, the lanes it sets in increasing order, then zeros.
  alignas(16) std::int32_t lanes[16][4];
};

constexpr PackedLanes MakePackedLanes() {
  PackedLanes table{};
  for (int mask = 0; mask < 16; ++mask)
    for (int lane = 0, to = 0; lane < 4; ++lane)
      if (mask >> lane & 1) table.lanes[mask][to++] = lane;
  return table;
}

inline constexpr PackedLanes kPackedLanes = MakePackedLanes();

}  // namespace tessera::dem
