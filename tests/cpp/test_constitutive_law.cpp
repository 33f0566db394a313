// Tests of the kernel's ConstitutiveLaw defaults: CalculateValue (Kratos'
// scalar query, e.g. STRAIN_ENERGY) throws naming the law and the variable for
// a law that does not provide it, rather than leaving a silent zero.
#include <gtest/gtest.h>

#include <string>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/constitutive_law.h"

using namespace tessera;

namespace {

// A law that answers CalculateMaterialResponse and nothing else.
class StressOnlyLaw final : public ConstitutiveLaw {
 public:
  Pointer Clone() const override { return std::make_shared<StressOnlyLaw>(*this); }
  int WorkingSpaceDimension() const override { return 3; }
  int GetStrainSize() const override { return 6; }
  void CalculateMaterialResponse(Parameters& values, StressMeasure) override {
    values.stress_vector = values.strain_vector;
  }
  std::string Info() const override { return "StressOnlyTestLaw"; }
};

}  // namespace

TEST(ConstitutiveLaw, CalculateValueWithoutTheVariableNamesTheLawAndTheVariable) {
  StressOnlyLaw law;
  ConstitutiveLaw::Parameters values;
  values.strain_vector = Vector::Constant(6, 1e-3);
  double value = 12.5;
  try {
    law.CalculateValue(values, STRAIN_ENERGY, value);
    FAIL() << "CalculateValue(STRAIN_ENERGY) of a law without it did not throw";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("StressOnlyTestLaw"), std::string::npos) << message;
    EXPECT_NE(message.find("STRAIN_ENERGY"), std::string::npos) << message;
  }
  EXPECT_EQ(value, 12.5);  // untouched
}
