// Four- and eight-lane vectors for the contact-law tests
// (test_contact_law_lanes.cpp): GCC vector extensions without a target (the
// compiler splits them into SSE2 halves, so they run on any x86-64, without
// AVX2 or AVX-512), the Math a law's Force is instantiated with on lanes, and
// a lane version of the pair table's friction, so that a test runs a law's
// Force on four or eight contacts at once as the batch kernel
// (pair_contact_lanes.inc) does with its AVX2 and AVX-512 vectors.
#pragma once

#include <cmath>
#include <cstddef>

#include "applications/dem/contact_laws/contact_law.h"

namespace tessera::dem::test_laws {

using Lanes4 = double __attribute__((vector_size(32)));
using Mask4 = decltype(Lanes4{} < Lanes4{});
inline constexpr std::size_t kTestLanes = 4;
using Lanes8 = double __attribute__((vector_size(64)));
using Mask8 = decltype(Lanes8{} < Lanes8{});

// The Math of `kLanes` lanes of type V.
template <class V, std::size_t kLanes>
struct TestLaneMathOf {
  using Mask = decltype(V{} < V{});
  static V Sqrt(V x) {
    for (std::size_t l = 0; l < kLanes; ++l) x[l] = std::sqrt(x[l]);
    return x;
  }
  static V Select(Mask m, V a, V b) { return m ? a : b; }
  static bool Any(Mask m) {
    for (std::size_t l = 0; l < kLanes; ++l)
      if (m[l]) return true;
    return false;
  }
};
using TestLaneMath = TestLaneMathOf<Lanes4, 4>;
using TestLaneMath8 = TestLaneMathOf<Lanes8, 8>;

// μ of the lanes: static while sticking, dynamic once slid (no FRICTION_DECAY).
template <class V>
struct TestLaneFrictionOf {
  using Mask = decltype(V{} < V{});
  V static_friction, dynamic_friction;
  V operator()(const Mask& sliding, const V&, const V&, const V&) const {
    return sliding ? dynamic_friction : static_friction;
  }
};
using TestLaneFriction = TestLaneFrictionOf<Lanes4>;
using TestLaneFriction8 = TestLaneFrictionOf<Lanes8>;

}  // namespace tessera::dem::test_laws
