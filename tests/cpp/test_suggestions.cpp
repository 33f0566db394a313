// Tests of the "did you mean" helper used by every name-lookup error.
#include <gtest/gtest.h>

#include "kernel/core/suggestions.h"

using namespace tessera;

TEST(Suggestions, EditDistanceCountsTranspositionsAsOneEdit) {
  EXPECT_EQ(EditDistance("time_step", "time_step"), 0u);
  EXPECT_EQ(EditDistance("DISPLACEMNT", "DISPLACEMENT"), 1u);  // one deletion
  EXPECT_EQ(EditDistance("tiem_step", "time_step"), 1u);       // one adjacent swap
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);  // the textbook Levenshtein example
}

TEST(Suggestions, ClosestFirstAndNothingWhenFar) {
  const std::vector<std::string> names{"VELOCITY", "VELOCITY_X", "PRESSURE", "DISPLACEMENT"};
  EXPECT_EQ(DidYouMean("VELOCTY", names), "; did you mean VELOCITY or VELOCITY_X?");
  EXPECT_EQ(DidYouMean("COMPLETELY_DIFFERENT", names), "");
  EXPECT_EQ(ClosestNames("PRESURE", names, 1), std::vector<std::string>{"PRESSURE"});
}
