// A contact law's Force is one source for the scalar path and the batch
// kernel's lanes (applications/dem/contact_laws/laws/viscous_coulomb.h): each
// law, the build's and the test-only ones (contact_laws/stiff_linear_law.h,
// contact_laws/plastic_linear_law.h, each one header and one list entry), runs
// on four and eight lanes (lane_math.h: the batch kernel's widths, emulated)
// and through ComputeContactForce, contact by contact, with bitwise the same
// force, powers and history over a load-unload sequence; the test laws and
// the Walton–Braun law also match their closed forms. A law keeping more than
// the record's five doubles (PlasticLinear, eight) gets the rest from its
// side table row, and is an error without one. Header-only, as
// test_contact_law_list.cpp.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/contact_laws/contact_laws.h"
#include "applications/dem/contact_laws/rolling_friction.h"
#include "kernel/core/error.h"
#include "tests/cpp/contact_laws/lane_math.h"
#include "tests/cpp/contact_laws/plastic_linear_law.h"
#include "tests/cpp/contact_laws/stiff_linear_law.h"

using namespace tessera;
using namespace tessera::dem;
using namespace tessera::dem::test_laws;

namespace {

// The build's laws and the test's two: the one line each new law adds.
using LaneTestLaws = ContactLaws::With<StiffLinear, PlasticLinear>;
static_assert(ExtraHistoryDoubles<LaneTestLaws>() == 3);
static_assert(LawExtraHistory<StiffLinear> == 0 && LawExtraHistory<PlasticLinear> == 3);

constexpr std::size_t kMaxHistory = 8;

PairParameters Pair(ContactLaw law, double damping, double restitution = 1.0) {
  PairParameters p;
  p.law = law;
  p.restitution = restitution;
  p.effective_young = 1e5;
  p.effective_shear = 3e4;
  p.damping_ratio = damping;
  p.static_friction = 0.5;
  p.dynamic_friction = 0.3;
  p.defined = true;
  return p;
}

// Contact `lane` at step `step` of a sequence that loads, then unloads, with
// a tangential motion that slips in some lanes: the normal turns a little
// each step (the spring is rotated), the overlap rises for six steps and
// falls after (the spring is scaled, the plastic law unloads).
struct Step {
  double overlap, radius, mass;
  Array3 normal, velocity, displacement;
};
Step ContactAt(std::size_t lane, int step) {
  const double phase = 0.05 * step + 0.3 * static_cast<double>(lane);
  const Array3 n{std::cos(phase), std::sin(phase), 0.1 * static_cast<double>(lane)};
  const double rise = step < 6 ? step + 1.0 : 12.0 - step;
  Step s;
  s.overlap = 1e-5 * rise * (1.0 + 0.25 * static_cast<double>(lane));
  s.radius = 0.005 * (1.0 + 0.1 * static_cast<double>(lane));
  s.mass = 0.01;
  s.normal = n / Norm(n);
  s.velocity = Array3{-0.1 + 0.02 * step, 0.01 * (1.0 + static_cast<double>(lane) * lane), 0.003};
  s.displacement = s.velocity * 1e-5 + Array3{0.0, 1e-6 * static_cast<double>(lane) * lane, 0.0};
  return s;
}

struct Result {
  ContactForce force;
  std::array<double, kMaxHistory> history{};
  std::uint8_t sliding = 0;
};

std::uint64_t Bits(double x) { return std::bit_cast<std::uint64_t>(x); }

// The lane widths of the batch kernel: four (AVX2) and eight (AVX-512), here
// emulated (lane_math.h), so that a law's Force is checked at both widths on
// any processor.
struct FourLanes {
  using Vec = Lanes4;
  using Mask = Mask4;
  using Math = TestLaneMath;
  using Friction = TestLaneFriction;
  static constexpr std::size_t kLanes = 4;
};
struct EightLanes {
  using Vec = Lanes8;
  using Mask = Mask8;
  using Math = TestLaneMath8;
  using Friction = TestLaneFriction8;
  static constexpr std::size_t kLanes = 8;
};

// `steps` evaluations of law L, lane by lane through ComputeContactForce and
// on W's lanes through L's Force; every value of every step compared bit for
// bit. Returns the scalar results of the last step.
template <class L, class W = FourLanes>
std::array<Result, W::kLanes> RunBothPaths(double damping, int steps, double restitution = 1.0) {
  using Vec = typename W::Vec;
  const PairParameters p = Pair(LaneTestLaws::Id<L>(), damping, restitution);
  const double factor = TangentialDampingFactor(p);
  constexpr std::size_t kDoubles = L::kHistoryDoubles;
  std::array<Result, W::kLanes> scalar{};
  Vec h[kDoubles] = {};
  typename W::Mask sliding{};
  for (int step = 0; step < steps; ++step) {
    LawContact<Vec> lanes{};
    for (std::size_t l = 0; l < W::kLanes; ++l) {
      const Step s = ContactAt(l, step);
      Result& r = scalar[l];
      Array3 spring{r.history[0], r.history[1], r.history[2]};
      ContactHistoryRef ref{spring, r.history[3], r.history[4], r.sliding};
      r.force = ComputeContactForce<LaneTestLaws>(p, s.overlap, s.radius, s.mass, s.normal,
                                                  s.velocity, s.displacement, ref, 1e-5, factor,
                                                  r.history.data() + 5);
      r.history[0] = spring[0], r.history[1] = spring[1], r.history[2] = spring[2];
      lanes.overlap[l] = s.overlap, lanes.radius[l] = s.radius, lanes.mass[l] = s.mass;
      lanes.nx[l] = s.normal[0], lanes.ny[l] = s.normal[1], lanes.nz[l] = s.normal[2];
      lanes.vx[l] = s.velocity[0], lanes.vy[l] = s.velocity[1], lanes.vz[l] = s.velocity[2];
      lanes.sx[l] = s.displacement[0], lanes.sy[l] = s.displacement[1];
      lanes.sz[l] = s.displacement[2];
    }
    lanes.young = Vec{} + p.effective_young;
    lanes.shear = Vec{} + p.effective_shear;
    lanes.damping_ratio = Vec{} + p.damping_ratio;
    lanes.tangential_damping = Vec{} + factor;
    lanes.damping_factor_given = true;
    lanes.dt = Vec{} + 1e-5;
    lanes.restitution = Vec{} + p.restitution;
    const typename W::Friction friction{Vec{} + p.static_friction, Vec{} + p.dynamic_friction};
    const LawForce<Vec, typename W::Mask> f =
        L::template Force<L, Vec, typename W::Math, true>(lanes, h, sliding, friction);
    sliding = f.slip;
    Vec ex, ey, ez;
    L::ElasticForce(lanes, h, ex, ey, ez);
    for (std::size_t l = 0; l < W::kLanes; ++l) {
      const Result& r = scalar[l];
      SCOPED_TRACE(std::string(L::kName) + " lane " + std::to_string(l) + " of " +
                   std::to_string(W::kLanes) + " step " + std::to_string(step));
      EXPECT_EQ(Bits(r.force.force[0]), Bits(f.fx[l]));
      EXPECT_EQ(Bits(r.force.force[1]), Bits(f.fy[l]));
      EXPECT_EQ(Bits(r.force.force[2]), Bits(f.fz[l]));
      EXPECT_EQ(Bits(r.force.elastic_force[0]), Bits(ex[l]));
      EXPECT_EQ(Bits(r.force.elastic_force[1]), Bits(ey[l]));
      EXPECT_EQ(Bits(r.force.elastic_force[2]), Bits(ez[l]));
      EXPECT_EQ(Bits(r.force.normal_force), Bits(f.normal_force[l]));
      EXPECT_EQ(Bits(r.force.damping_power), Bits(f.damping_power[l]));
      EXPECT_EQ(Bits(r.force.friction_power), Bits(f.friction_power[l]));
      EXPECT_EQ(r.sliding != 0, f.slip[l] != 0);
      for (std::size_t k = 0; k < kDoubles; ++k)
        EXPECT_EQ(Bits(r.history[k]), Bits(h[k][l])) << "history double " << k;
    }
  }
  return scalar;
}

TEST(ContactLawLanes, EveryLawIsBitwiseTheSameOnLanesAndScalar) {
  bool slid = false;
  LaneTestLaws::ForEach([&]<class L>(std::type_identity<L>) {
    if constexpr (!L::kPlanar) {
      for (double damping : {0.0, 0.3}) {
        const auto last = RunBothPaths<L>(damping, 12);
        for (const Result& r : last) slid = slid || r.sliding;
      }
    }
  });
  EXPECT_TRUE(slid) << "the sequence never reaches the slider";
}

TEST(ContactLawLanes, EveryLawIsBitwiseTheSameOnEightLanesAndScalar) {
  // The eight-lane (AVX-512) width of the batch kernel, emulated: each law's
  // Force is the same source at that width too. (The kernel's own eight-lane
  // code around the law, the gathers and the geometry, needs AVX-512 to run.)
  LaneTestLaws::ForEach([&]<class L>(std::type_identity<L>) {
    if constexpr (!L::kPlanar)
      for (double damping : {0.0, 0.3}) RunBothPaths<L, EightLanes>(damping, 12);
  });
  RunBothPaths<LinearWaltonBraun, EightLanes>(0.0, 12, 0.5);
}

TEST(ContactLawLanes, TheStiffTestLawIsTwiceTheLinearLaw) {
  // Undamped, twice the stiffnesses: twice the normal force at every overlap,
  // F_n = 4 E* R δ exactly (a factor 2 and powers of 2).
  const auto stiff = RunBothPaths<StiffLinear>(0.0, 1);
  for (std::size_t l = 0; l < kTestLanes; ++l) {
    const Step s = ContactAt(l, 0);
    EXPECT_EQ(stiff[l].force.normal_force, 4.0 * 1e5 * s.radius * s.overlap);
  }
}

TEST(ContactLawLanes, ThePlasticTestLawKeepsEightDoublesAndUnloadsAlongItsClosedForm) {
  // 12 steps: loading to δ_max at step 5, unloading after (ContactAt). The
  // closed form (plastic_linear_law.h): F_ne = k_2 (δ - δ_0), δ_0 = δ_max (1
  // - k_1/k_2), W_p = k_1 δ_max² (1 - k_1/k_2) / 2, undamped: F_n = F_ne.
  // Tolerance 1e-12 relative: a few roundings of the same products.
  for (int steps = 1; steps <= 12; ++steps) {
    const auto last = RunBothPaths<PlasticLinear>(0.0, steps);
    for (std::size_t l = 0; l < kTestLanes; ++l) {
      const Step s = ContactAt(l, steps - 1);
      const double k1 = 2.0 * 1e5 * s.radius;
      const double k2 = PlasticLinear::kUnloading * k1;
      const double largest = ContactAt(l, 5).overlap;
      const double reached = steps >= 6 ? largest : s.overlap;
      const double plastic = reached * (1.0 - k1 / k2);
      const double expected =
          steps <= 6 ? k1 * s.overlap : std::max(0.0, k2 * (s.overlap - plastic));
      SCOPED_TRACE("lane " + std::to_string(l) + " steps " + std::to_string(steps));
      EXPECT_NEAR(last[l].force.normal_force, expected, 1e-12 * k1 * largest);
      EXPECT_NEAR(last[l].history[PlasticLinear::kLargestOverlap], reached, 1e-12 * largest);
      EXPECT_NEAR(last[l].history[PlasticLinear::kPlasticOverlap], plastic, 1e-12 * largest);
      EXPECT_NEAR(last[l].history[PlasticLinear::kPlasticWork],
                  0.5 * k1 * reached * reached * (1.0 - k1 / k2), 1e-12 * k1 * largest * largest);
    }
  }
  // Fully unloaded below δ_0 (step 11: δ = δ_max / 6 < 3/4 δ_max): no force.
  const auto unloaded = RunBothPaths<PlasticLinear>(0.0, 12);
  EXPECT_EQ(unloaded[0].force.normal_force, 0.0);
}

TEST(ContactLawLanes, TheWaltonBraunLawUnloadsAlongK2FromItsLargestOverlap) {
  // laws/linear_walton_braun.h with e = 0.5: k_2 = k_1 / e² = 4 k_1, δ_0 =
  // δ_max (1 - e²), F_ne = k_1 δ loading, max(0, k_2 (δ - δ_0)) after step 5
  // (ContactAt); undamped, F_n = F_ne. Tolerance as for the test law above.
  const double e = 0.5;
  for (int steps = 1; steps <= 12; ++steps) {
    const auto last = RunBothPaths<LinearWaltonBraun>(0.0, steps, e);
    for (std::size_t l = 0; l < kTestLanes; ++l) {
      const Step s = ContactAt(l, steps - 1);
      const double k1 = 2.0 * 1e5 * s.radius;
      const double largest = ContactAt(l, 5).overlap;
      const double reached = steps >= 6 ? largest : s.overlap;
      const double expected =
          steps <= 6 ? k1 * s.overlap
                     : std::max(0.0, k1 / (e * e) * (s.overlap - reached * (1.0 - e * e)));
      SCOPED_TRACE("lane " + std::to_string(l) + " steps " + std::to_string(steps));
      EXPECT_NEAR(last[l].force.normal_force, expected, 1e-12 * k1 * largest);
      EXPECT_EQ(last[l].history[LinearWaltonBraun::kLargestOverlap], reached);
      // Stored energy F_ne² / (2 k_2) on both branches.
      EXPECT_NEAR(last[l].force.elastic_energy, expected * expected * e * e / (2.0 * k1),
                  1e-12 * k1 * largest * largest);
    }
  }
}

TEST(ContactLawLanes, ALawWithMoreHistoryNeedsItsSideTableRow) {
  const PairParameters p = Pair(LaneTestLaws::Id<PlasticLinear>(), 0.0);
  Array3 spring{};
  double kt = 0.0, fne = 0.0;
  std::uint8_t sliding = 0;
  try {
    ComputeContactForce<LaneTestLaws>(p, 1e-5, 0.005, 0.01, Array3{1.0, 0.0, 0.0}, Array3{},
                                      Array3{}, {spring, kt, fne, sliding}, 1e-5);
    FAIL() << "no error without the extra history";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("TEST_Plastic_linear keeps 8 doubles"),
              std::string::npos)
        << error.what();
  }
}

TEST(RollingFrictionModels, NamesIdsAndTheTorqueComeFromTheList) {
  EXPECT_EQ(RollingFrictionModels::size, 2u);
  EXPECT_EQ(RollingFrictionModels::IdOfName("DEMRollingFrictionModelViscousTorque"),
            kRollingModelId<ViscousTorqueRolling>);
  EXPECT_EQ(RollingFrictionModels::IdOfName("DEMRollingFrictionModelBounded"),
            RollingFrictionModel::kNone);
  EXPECT_EQ(RollingFrictionModels::Names(),
            "DEMRollingFrictionModelConstantTorque, DEMRollingFrictionModelViscousTorque");
  // Thesis 2.42: |M_r| = μ_r R |F_n| against the spin; the viscous model
  // times R |w|. Below the one-step limit (large inertia), exactly.
  const Array3 spin{0.0, 0.0, 2.0};
  const Array3 constant = RollingResistanceTorque(kRollingModelId<ConstantTorqueRolling>, 0.1, 0.01,
                                                  3.0, spin, 1e-6, 1e-5);
  EXPECT_DOUBLE_EQ(constant[2], -0.1 * 0.01 * 3.0);
  const Array3 viscous = RollingResistanceTorque(kRollingModelId<ViscousTorqueRolling>, 0.1, 0.01,
                                                 3.0, spin, 1e-6, 1e-5);
  EXPECT_DOUBLE_EQ(viscous[2], -0.1 * 0.01 * 3.0 * 0.01 * 2.0);
  // An id outside the list is an error naming it, never another model.
  EXPECT_THROW(RollingResistanceTorque(static_cast<RollingFrictionModel>(3), 0.1, 0.01, 3.0, spin,
                                       1e-6, 1e-5),
               Error);
}

}  // namespace
