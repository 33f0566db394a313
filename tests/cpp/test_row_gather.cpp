// RowGather: by runs or element by element, the same rows as the plain
// gather (out[k] = in[kept[k]]); a reordering stays in the same storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernel/core/types.h"
#include "kernel/model/row_gather.h"

namespace tessera {
namespace {

template <class T>
std::vector<T> Plain(const std::vector<T>& in, const std::vector<IndexType>& kept) {
  std::vector<T> out;
  for (IndexType i : kept) out.push_back(in[i]);
  return out;
}

// Orders of 1,000 rows: long runs with rows inserted and removed (a
// distributed DEM search's merge), a shuffle (a spatial sort: short runs),
// a removal in order, and the identity.
std::vector<std::vector<IndexType>> Orders() {
  std::mt19937 random(7);
  const IndexType n = 1000;
  std::vector<IndexType> identity(n);
  std::iota(identity.begin(), identity.end(), 0u);
  std::vector<IndexType> merged;  // rows 900.. moved among the first ones, 50 rows gone
  for (IndexType i = 0; i < 900; ++i) {
    if (i % 100 == 3) merged.push_back(900 + i / 100);
    if (i % 18 != 5) merged.push_back(i);
  }
  std::vector<IndexType> shuffled = identity;
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  std::vector<IndexType> removal;
  for (IndexType i = 0; i < n; ++i)
    if (random() % 7 != 0) removal.push_back(i);
  return {merged, shuffled, removal, identity, {}};
}

TEST(RowGather, GathersTheRowsOfThePlainGather) {
  std::vector<double> doubles(1000);
  std::vector<std::string> strings(1000);  // not trivially copyable
  for (std::size_t i = 0; i < doubles.size(); ++i) {
    doubles[i] = 0.5 * static_cast<double>(i);
    strings[i] = std::to_string(i);
  }
  for (const std::vector<IndexType>& kept : Orders()) {
    const RowGather gather(kept);
    EXPECT_EQ(gather.Size(), kept.size());
    std::vector<double> a = doubles, b = doubles;
    std::vector<std::string> s = strings;
    gather.Apply(a);
    gather.ApplyAnew(b);
    gather.Apply(s);
    EXPECT_EQ(a, Plain(doubles, kept));
    EXPECT_EQ(b, Plain(doubles, kept));
    EXPECT_EQ(s, Plain(strings, kept));
  }
}

TEST(RowGather, AReorderingKeepsItsStorage) {
  for (const std::vector<IndexType>& kept : Orders()) {
    std::vector<double> values(1000, 1.0);
    const double* storage = values.data();
    RowGather(kept).Apply(values);
    if (kept.size() == 1000)
      EXPECT_EQ(values.data(), storage);  // views of it stay valid
    else
      EXPECT_EQ(values.size(), kept.size());
  }
  std::vector<IndexType> identity(10);
  std::iota(identity.begin(), identity.end(), 0u);
  EXPECT_TRUE(RowGather(identity).Identity(10));
  EXPECT_FALSE(RowGather(identity).Identity(11));  // a row more goes
  EXPECT_FALSE(RowGather(std::vector<IndexType>{1, 2, 3}).Identity(3));
}

}  // namespace
}  // namespace tessera
