// IdIndexMap: the id -> position map of a root container (nodes, elements,
// conditions, geometries, constraints).
//
// Mesh generators and .mdpa files number entities densely (1..n), so the map
// is a table indexed by id, 4 bytes per id, instead of a hash map's ~40 bytes
// per entry and a hashed lookup. Ids too sparse for that (an id beyond
// kDenseFactor times the count, or the reserved size, plus kDenseSlack; or a
// negative id) switch the map to a hash map until it is cleared. Either way an
// id maps to one position at most.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "kernel/core/types.h"

namespace tessera {

inline constexpr IndexType kInvalidIndex = std::numeric_limits<IndexType>::max();

class IdIndexMap {
 public:
  // Adds id -> index; false (and nothing changed) when the id is present.
  bool Insert(IdType id, IndexType index);
  // The position of `id`, or kInvalidIndex.
  IndexType Find(IdType id) const;
  bool Contains(IdType id) const { return Find(id) != kInvalidIndex; }
  // id -> index whether or not the id is present.
  void Set(IdType id, IndexType index);
  void Erase(IdType id);
  void Clear();
  void Reserve(std::size_t n);
  std::size_t Size() const { return count_; }
  bool IsDense() const { return !sparse_mode_; }

  static constexpr std::size_t kDenseFactor = 4;
  static constexpr std::size_t kDenseSlack = 1024;

 private:
  // Whether `id` has (or may get, by growing) a slot of the table.
  bool FitsTable(IdType id) const;
  void SwitchToHash();

  std::vector<IndexType> table_;  // by id; kInvalidIndex where absent
  std::unordered_map<IdType, IndexType> hash_;
  bool sparse_mode_ = false;
  std::size_t count_ = 0;
  std::size_t reserved_ = 0;  // the last Reserve: that many entries are expected
};

}  // namespace tessera
