// Doubles as unsigned integers of the same order (IEEE 754: a negative's
// bits inverted, a non-negative's sign bit set), and back. Exact reductions
// of minima and maxima can then run on integers (Communicator::MinAll of an
// array), and a search over all doubles between two can halve the integer
// interval between them (distributed_rcb.cpp). NaN has no place in the order.
#pragma once

#include <cstdint>
#include <cstring>

namespace tessera {

inline std::uint64_t OrderedBits(double value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
}

inline double FromOrderedBits(std::uint64_t ordered) {
  const std::uint64_t bits = (ordered >> 63) != 0 ? ordered & ~(std::uint64_t{1} << 63) : ~ordered;
  double value = 0.0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace tessera
