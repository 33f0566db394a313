// OrderedBits: doubles as unsigned integers of the same order, and back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernel/core/ordered_double.h"

namespace tessera {
namespace {

TEST(OrderedDouble, KeepsTheOrderAndRoundTrips) {
  const double inf = std::numeric_limits<double>::infinity();
  const double tiny = std::numeric_limits<double>::denorm_min();
  // Ascending; -0.0 and 0.0 compare equal but have an order here (-0 first).
  const std::vector<double> ascending{-inf, -1e300, -1.0, std::nextafter(-1.0, 0.0), -tiny, -0.0,
                                      0.0,  tiny,   1.0,  std::nextafter(1.0, 2.0),  1e300, inf};
  for (std::size_t i = 0; i < ascending.size(); ++i) {
    const double x = ascending[i];
    const double back = FromOrderedBits(OrderedBits(x));
    EXPECT_EQ(std::signbit(back), std::signbit(x));
    EXPECT_EQ(back, x);
    if (i > 0) EXPECT_LT(OrderedBits(ascending[i - 1]), OrderedBits(x)) << x;
  }
  // Neighbouring doubles are neighbouring integers (across zero too), so a
  // halving of the integers visits every double between two.
  EXPECT_EQ(OrderedBits(std::nextafter(1.0, 2.0)), OrderedBits(1.0) + 1);
  EXPECT_EQ(OrderedBits(0.0), OrderedBits(-0.0) + 1);
  EXPECT_EQ(OrderedBits(tiny), OrderedBits(0.0) + 1);
  EXPECT_EQ(OrderedBits(-0.0), OrderedBits(-tiny) + 1);
}

}  // namespace
}  // namespace tessera
