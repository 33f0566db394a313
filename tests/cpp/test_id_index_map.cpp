// IdIndexMap: the same answers as a hash map whether ids are dense or sparse,
// and the switch between its two representations.
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

#include "kernel/model/id_index_map.h"

namespace tessera {
namespace {

TEST(IdIndexMap, DenseIdsStayInTheTable) {
  IdIndexMap map;
  for (IdType id = 1; id <= 5000; ++id) EXPECT_TRUE(map.Insert(id, static_cast<IndexType>(id - 1)));
  EXPECT_TRUE(map.IsDense());
  EXPECT_EQ(map.Size(), 5000u);
  EXPECT_EQ(map.Find(1), 0u);
  EXPECT_EQ(map.Find(5000), 4999u);
  EXPECT_EQ(map.Find(0), kInvalidIndex);
  EXPECT_EQ(map.Find(5001), kInvalidIndex);
  EXPECT_EQ(map.Find(-3), kInvalidIndex);
  EXPECT_FALSE(map.Insert(17, 99));  // taken: unchanged
  EXPECT_EQ(map.Find(17), 16u);
  map.Set(17, 99);
  EXPECT_EQ(map.Find(17), 99u);
  map.Erase(17);
  EXPECT_FALSE(map.Contains(17));
  EXPECT_EQ(map.Size(), 4999u);
  map.Erase(17);  // absent: nothing happens
  EXPECT_EQ(map.Size(), 4999u);
}

TEST(IdIndexMap, SparseOrNegativeIdsSwitchToAHashKeepingEveryEntry) {
  IdIndexMap map;
  for (IdType id = 1; id <= 10; ++id) map.Insert(id, static_cast<IndexType>(id));
  EXPECT_TRUE(map.Insert(1'000'000'000, 11));  // far beyond 4 x 11 + 1024
  EXPECT_FALSE(map.IsDense());
  for (IdType id = 1; id <= 10; ++id) EXPECT_EQ(map.Find(id), static_cast<IndexType>(id));
  EXPECT_EQ(map.Find(1'000'000'000), 11u);
  EXPECT_FALSE(map.Insert(5, 0));
  EXPECT_EQ(map.Size(), 11u);
  map.Clear();  // back to a table
  EXPECT_TRUE(map.IsDense());
  EXPECT_EQ(map.Size(), 0u);
  EXPECT_EQ(map.Find(5), kInvalidIndex);

  IdIndexMap negative;
  EXPECT_TRUE(negative.Insert(-4, 0));
  EXPECT_FALSE(negative.IsDense());
  EXPECT_EQ(negative.Find(-4), 0u);
}

TEST(IdIndexMap, ReservingAllowsDenseIdsInDecreasingOrder) {
  // A file listing ids 20000..1 backwards: the first id is far beyond the
  // count, but within the reserved size.
  IdIndexMap map;
  map.Reserve(20000);
  for (IdType id = 20000; id >= 1; --id) map.Insert(id, static_cast<IndexType>(20000 - id));
  EXPECT_TRUE(map.IsDense());
  EXPECT_EQ(map.Find(20000), 0u);
  EXPECT_EQ(map.Find(1), 19999u);
}

TEST(IdIndexMap, RandomOperationsAgreeWithAHashMap) {
  // Inserts, overwrites and erases of ids below 1000 (the table), then from a
  // range wide enough to switch the map to its hash: every lookup equals the
  // hash map's.
  std::mt19937_64 random(7);
  IdIndexMap map;
  std::unordered_map<IdType, IndexType> reference;
  bool switched = false;
  for (int step = 0; step < 20000; ++step) {
    const IdType range = step < 15000 ? 1000 : 100'000'000;
    const IdType id = static_cast<IdType>(random() % static_cast<std::uint64_t>(range));
    const auto index = static_cast<IndexType>(random() % 1000);
    switch (random() % 3) {
      case 0:
        EXPECT_EQ(map.Insert(id, index), reference.emplace(id, index).second);
        break;
      case 1:
        map.Set(id, index);
        reference[id] = index;
        break;
      default:
        map.Erase(id);
        reference.erase(id);
    }
    if (step < 15000) ASSERT_TRUE(map.IsDense());  // ids below 1000 always fit the table
    switched = switched || !map.IsDense();
    ASSERT_EQ(map.Size(), reference.size());
    const IdType probe = static_cast<IdType>(random() % static_cast<std::uint64_t>(range));
    const auto it = reference.find(probe);
    ASSERT_EQ(map.Find(probe), it == reference.end() ? kInvalidIndex : it->second);
  }
  EXPECT_TRUE(switched);
  for (const auto& [id, index] : reference) EXPECT_EQ(map.Find(id), index);
}

}  // namespace
}  // namespace tessera
