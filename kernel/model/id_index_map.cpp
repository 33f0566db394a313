// IdIndexMap: a table by id while ids are dense, a hash map otherwise.
#include "kernel/model/id_index_map.h"

#include <algorithm>

namespace tessera {

bool IdIndexMap::FitsTable(IdType id) const {
  if (id < 0) return false;
  const auto slot = static_cast<std::size_t>(id);
  return slot < table_.size() ||
         slot < kDenseFactor * std::max(count_ + 1, reserved_) + kDenseSlack;
}

void IdIndexMap::SwitchToHash() {
  hash_.reserve(count_);
  for (std::size_t id = 0; id < table_.size(); ++id)
    if (table_[id] != kInvalidIndex) hash_.emplace(static_cast<IdType>(id), table_[id]);
  std::vector<IndexType>().swap(table_);
  sparse_mode_ = true;
}

bool IdIndexMap::Insert(IdType id, IndexType index) {
  if (!sparse_mode_ && !FitsTable(id)) SwitchToHash();
  if (sparse_mode_) {
    if (!hash_.emplace(id, index).second) return false;
    ++count_;
    return true;
  }
  const auto slot = static_cast<std::size_t>(id);
  // resize grows the capacity geometrically, so ids arriving in increasing
  // order cost amortised O(1) each.
  if (slot >= table_.size()) table_.resize(slot + 1, kInvalidIndex);
  if (table_[slot] != kInvalidIndex) return false;
  table_[slot] = index;
  ++count_;
  return true;
}

IndexType IdIndexMap::Find(IdType id) const {
  if (sparse_mode_) {
    const auto it = hash_.find(id);
    return it == hash_.end() ? kInvalidIndex : it->second;
  }
  if (id < 0 || static_cast<std::size_t>(id) >= table_.size()) return kInvalidIndex;
  return table_[static_cast<std::size_t>(id)];
}

void IdIndexMap::Set(IdType id, IndexType index) {
  if (Insert(id, index)) return;
  if (sparse_mode_)
    hash_[id] = index;
  else
    table_[static_cast<std::size_t>(id)] = index;
}

void IdIndexMap::Erase(IdType id) {
  if (sparse_mode_) {
    count_ -= hash_.erase(id);
    return;
  }
  if (id < 0 || static_cast<std::size_t>(id) >= table_.size()) return;
  IndexType& slot = table_[static_cast<std::size_t>(id)];
  if (slot == kInvalidIndex) return;
  slot = kInvalidIndex;
  --count_;
}

void IdIndexMap::Clear() {
  // Back to a table: the ids inserted next may be dense again.
  table_.clear();
  hash_.clear();
  sparse_mode_ = false;
  count_ = 0;
}

void IdIndexMap::Reserve(std::size_t n) {
  reserved_ = n;
  if (sparse_mode_)
    hash_.reserve(n);
  else
    table_.reserve(n + 1);  // ids 1..n
}

}  // namespace tessera
