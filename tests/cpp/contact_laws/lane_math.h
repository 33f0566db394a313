// Four-lane vectors for the contact-law tests (test_contact_law_lanes.cpp):
// GCC vector extensions without a target (the compiler splits them into SSE2
// halves), the Math a law's Force is instantiated with on lanes, and a lane
// version of the pair table's friction, so that a test runs a law's Force on
// four contacts at once as the batch kernel (pair_contact_lanes.inc) does.
#pragma once

#include <cmath>
#include <cstddef>

#include "applications/dem/contact_laws/contact_law.h"

namespace tessera::dem::test_laws {

using Lanes4 = double __attribute__((vector_size(32)));
using Mask4 = decltype(Lanes4{} < Lanes4{});
inline constexpr std::size_t kTestLanes = 4;

struct TestLaneMath {
  using Mask = Mask4;
  static Lanes4 Sqrt(Lanes4 x) {
    for (std::size_t l = 0; l < kTestLanes; ++l) x[l] = std::sqrt(x[l]);
    return x;
  }
  static Lanes4 Select(Mask4 m, Lanes4 a, Lanes4 b) { return m ? a : b; }
  static bool Any(Mask4 m) {
    for (std::size_t l = 0; l < kTestLanes; ++l)
      if (m[l]) return true;
    return false;
  }
};

// μ of the lanes: static while sticking, dynamic once slid (no FRICTION_DECAY).
struct TestLaneFriction {
  Lanes4 static_friction, dynamic_friction;
  Lanes4 operator()(const Mask4& sliding, const Lanes4&, const Lanes4&, const Lanes4&) const {
    return sliding ? dynamic_friction : static_friction;
  }
};

}  // namespace tessera::dem::test_laws
