// Kratos' split of the Coulomb cap between the tangential spring and dashpot
// (LawContact::elastic_slider, laws/viscous_coulomb.h; Kratos'
// DEM_D_Hertz_viscous_Coulomb, CalculateTangentialForceWithNeighbour), as the
// wall contacts use it: when spring F_e plus dashpot F_v exceed μ F_n, along
// each other the spring is kept whole below the cap (the dashpot takes the
// rest) and capped alone above it; against each other a dashpot larger than
// the spring grows to μ F_n + |F_e|, else the spring is capped and the dashpot
// dropped. In every case the force passed is μ F_n and the spring keeps its
// elastic part, not the capped total (the default slider's). Header-only, as
// test_contact_law_lanes.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/contact_laws/contact_laws.h"

using namespace tessera;
using namespace tessera::dem;

namespace {

constexpr double kYoung = 1e5, kShear = 3e4, kDamping = 0.4, kFriction = 0.5;
constexpr double kRadius = 0.05, kMass = 2.0, kOverlap = 1e-3, kDt = 1e-5;

PairParameters HertzPair() {
  PairParameters p;
  p.law = kLawId<HertzViscousCoulomb>;
  p.effective_young = kYoung;
  p.effective_shear = kShear;
  p.damping_ratio = kDamping;
  p.static_friction = p.dynamic_friction = kFriction;
  p.restitution = 0.5;
  p.defined = true;
  return p;
}

// The Hertz law's values at kOverlap (laws/hertz_viscous_coulomb.h):
// a = sqrt(R δ), k_n = 2 E* a, k_t = 8 G* a, F_ne = 2/3 k_n δ; c_t = 2 ξ
// sqrt(m k_t). No normal motion, so F_n = F_ne and the cap is μ F_ne.
struct Hertz {
  double kt, ct, cap;
};
Hertz HertzValues() {
  const double a = std::sqrt(kRadius * kOverlap);
  const double kn = 2.0 * kYoung * a, kt = 8.0 * kShear * a;
  return {kt, 2.0 * kDamping * std::sqrt(kMass * kt), kFriction * (2.0 / 3.0) * kn * kOverlap};
}

struct Outcome {
  double force_x, spring_x;
  bool slid;
};

// One evaluation of a fresh contact (normal +z, from the sphere to the wall)
// whose trial spring is `spring` x cap and trial dashpot `dashpot` x cap, both
// along x.
Outcome Evaluate(double spring, double dashpot, bool elastic_slider) {
  const Hertz h = HertzValues();
  const Array3 velocity{dashpot * h.cap / h.ct, 0.0, 0.0};
  const Array3 displacement{spring * h.cap / h.kt, 0.0, 0.0};
  Array3 history_spring{};
  double kt = 0.0, fne = 0.0;
  std::uint8_t sliding = 0;
  const ContactForce f = ComputeContactForce(
      HertzPair(), kOverlap, kRadius, kMass, Array3{0.0, 0.0, 1.0}, velocity, displacement,
      {history_spring, kt, fne, sliding}, kDt, -1.0, nullptr, elastic_slider);
  return {f.force[0] / h.cap, history_spring[0] / h.cap, sliding != 0};
}

// Tolerance: a few roundings of the same products, relative to the cap.
constexpr double kTol = 1e-12;

}  // namespace

TEST(ElasticSlider, AlongEachOtherTheSpringIsKeptBelowTheCapAndTheDashpotTakesTheRest) {
  const Outcome o = Evaluate(0.6, 0.8, true);
  EXPECT_TRUE(o.slid);
  EXPECT_NEAR(o.force_x, 1.0, kTol);
  EXPECT_NEAR(o.spring_x, 0.6, kTol);
  // The default slider keeps the capped total in the spring.
  const Outcome capped = Evaluate(0.6, 0.8, false);
  EXPECT_NEAR(capped.force_x, 1.0, kTol);
  EXPECT_NEAR(capped.spring_x, 1.0, kTol);
}

TEST(ElasticSlider, AlongEachOtherASpringAboveTheCapIsCappedAndTheDashpotDropped) {
  const Outcome o = Evaluate(1.3, 0.2, true);
  EXPECT_TRUE(o.slid);
  EXPECT_NEAR(o.force_x, 1.0, kTol);
  EXPECT_NEAR(o.spring_x, 1.0, kTol);
}

TEST(ElasticSlider, AgainstEachOtherALargerDashpotGrowsToTheCapPlusTheSpring) {
  // F_e = 0.5, F_v = -2: the dashpot becomes -(1 + 0.5), the sum -1.
  const Outcome o = Evaluate(0.5, -2.0, true);
  EXPECT_TRUE(o.slid);
  EXPECT_NEAR(o.force_x, -1.0, kTol);
  EXPECT_NEAR(o.spring_x, 0.5, kTol);
}

TEST(ElasticSlider, AgainstEachOtherALargerSpringIsCappedAndTheDashpotDropped) {
  const Outcome o = Evaluate(2.0, -0.5, true);
  EXPECT_TRUE(o.slid);
  EXPECT_NEAR(o.force_x, 1.0, kTol);
  EXPECT_NEAR(o.spring_x, 1.0, kTol);
}

TEST(ElasticSlider, BelowTheCapNothingChanges) {
  const Outcome o = Evaluate(0.3, 0.4, true);
  const Outcome d = Evaluate(0.3, 0.4, false);
  EXPECT_FALSE(o.slid);
  EXPECT_NEAR(o.force_x, 0.7, kTol);
  EXPECT_NEAR(o.spring_x, 0.3, kTol);
  EXPECT_EQ(o.force_x, d.force_x);
  EXPECT_EQ(o.spring_x, d.spring_x);
}
