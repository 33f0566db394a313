// The DEM contact laws as a list (applications/dem/contact_laws/contact_laws.h):
// a law added in a test-only header (contact_laws/stiff_linear_law.h) and one
// entry in a list runs through the scalar contact force, the stored energy and
// the time-step estimate with nothing else changed; an id outside the list is
// an error naming it, never another law. Header-only: the DEM library is not
// linked (its batch kernel is instantiated for the build's list only).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/contact_laws/contact_laws.h"
#include "kernel/core/error.h"
#include "tests/cpp/contact_laws/stiff_linear_law.h"

using namespace tessera;
using namespace tessera::dem;

namespace {

// The build's laws and the test's one: the one line a new law adds.
using TestLaws = ContactLaws::With<test_laws::StiffLinear>;

PairParameters ElasticPair(ContactLaw law) {
  PairParameters p;
  p.law = law;
  p.effective_young = 1e5;
  p.effective_shear = 3e4;
  p.static_friction = p.dynamic_friction = 0.5;
  p.defined = true;
  return p;
}

// A head-on contact with a small tangential step, from a fresh history.
ContactForce Evaluate(const PairParameters& p, PairHistory& history, std::uint8_t& sliding,
                      bool test_list) {
  const Array3 normal{1.0, 0.0, 0.0};
  const Array3 velocity{-0.1, 0.01, 0.0};
  const Array3 step{-1e-5, 1e-6, 0.0};
  const ContactHistoryRef ref{history.tangential_force, history.tangential_stiffness,
                              history.normal_elastic_force, sliding};
  return test_list ? ComputeContactForce<TestLaws>(p, 1e-4, 0.005, 0.01, normal, velocity, step,
                                                   ref, 1e-5)
                   : ComputeContactForce(p, 1e-4, 0.005, 0.01, normal, velocity, step, ref, 1e-5);
}

TEST(ContactLawList, NamesAndIdsComeFromTheList) {
  EXPECT_EQ(ContactLaws::size, 6u);
  EXPECT_EQ(TestLaws::size, ContactLaws::size + 1);
  EXPECT_EQ(TestLaws::IndexOfName("TEST_Stiff_linear"), 6);
  EXPECT_EQ(ContactLaws::IndexOfName("TEST_Stiff_linear"), -1);
  EXPECT_EQ(TestLaws::Id<test_laws::StiffLinear>(), static_cast<ContactLaw>(6));
  // The build's laws keep their ids in the longer list.
  ContactLaws::ForEach([]<class L>(std::type_identity<L>) {
    EXPECT_EQ(TestLaws::Id<L>(), ContactLaws::Id<L>()) << L::kName;
    EXPECT_EQ(ContactLaws::IndexOfName(L::kName), static_cast<int>(ContactLaws::Id<L>()));
  });
  static_assert(kLawId<HertzViscousCoulomb> == kDefaultContactLaw);
  EXPECT_TRUE(IsPlanarLaw(kLawId<LinearViscousCoulomb2D>));
  EXPECT_FALSE(IsPlanarLaw<TestLaws>(TestLaws::Id<test_laws::StiffLinear>()));
  EXPECT_FALSE(LawHasBatch<TestLaws>(TestLaws::Id<test_laws::StiffLinear>()));
}

TEST(ContactLawList, AnIdOutsideTheListIsAnErrorNamingIt) {
  const ContactLaw stray = TestLaws::Id<test_laws::StiffLinear>();  // not one of the build's
  try {
    IsPlanarLaw(stray);
    FAIL() << "no error for a law outside the list";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("contact law id 6 is none of the 6 laws"),
              std::string::npos)
        << error.what();
  }
  PairHistory history;
  std::uint8_t sliding = 0;
  EXPECT_THROW(Evaluate(ElasticPair(stray), history, sliding, false), Error);
}

TEST(ContactLawList, ATestLawRunsThroughTheScalarPath) {
  PairHistory linear_history, stiff_history;
  std::uint8_t linear_sliding = 0, stiff_sliding = 0;
  const ContactForce linear =
      Evaluate(ElasticPair(kLawId<LinearViscousCoulomb>), linear_history, linear_sliding, true);
  const PairParameters stiff_pair = ElasticPair(TestLaws::Id<test_laws::StiffLinear>());
  const ContactForce stiff = Evaluate(stiff_pair, stiff_history, stiff_sliding, true);
  // Twice the stiffnesses, no damping: twice every force, exactly (a factor 2).
  EXPECT_EQ(stiff.normal_force, 2.0 * linear.normal_force);
  EXPECT_EQ(stiff.force[1], 2.0 * linear.force[1]);
  EXPECT_EQ(stiff_history.tangential_stiffness, 2.0 * linear_history.tangential_stiffness);
  EXPECT_EQ(stiff.elastic_energy, 2.0 * linear.elastic_energy);
  // The build's list gives the build's law the same numbers as the longer one.
  PairHistory plain_history;
  std::uint8_t plain_sliding = 0;
  const ContactForce plain =
      Evaluate(ElasticPair(kLawId<LinearViscousCoulomb>), plain_history, plain_sliding, false);
  EXPECT_EQ(plain.normal_force, linear.normal_force);
  // The stored energy and the time-step estimate are the law's.
  EXPECT_DOUBLE_EQ(NormalElasticEnergy<TestLaws>(stiff_pair, stiff_history.normal_elastic_force,
                                                 stiff_history.tangential_stiffness),
                   stiff.elastic_energy);
  const ContactTimeEstimate estimate = EstimateContactTime<TestLaws>(stiff_pair, 0.005, 0.01, 1.0);
  EXPECT_EQ(estimate.normal_stiffness, 4.0 * 1e5 * 0.005);
  EXPECT_DOUBLE_EQ(estimate.contact_time, std::numbers::pi * std::sqrt(0.01 / (4.0 * 1e5 * 0.005)));
}

}  // namespace
