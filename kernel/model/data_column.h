// DataColumn: the values of one variable for every node of a root model part,
// stored contiguously (structure of arrays).
//
// A column of Array3 is one (N, 3) block of doubles, which is what lets numpy
// views and vectorised loops read nodal data without gathering.
#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "kernel/core/value.h"
#include "kernel/model/row_gather.h"

namespace tessera {

// bool is stored one byte per node (std::vector<bool> is not addressable).
struct BoolSlot {
  bool value = false;
};
template <class T>
using StorageOf = std::conditional_t<std::is_same_v<T, bool>, BoolSlot, T>;

class DataColumn {
 public:
  explicit DataColumn(const VariableBase& variable) : variable_(&variable) {}
  virtual ~DataColumn() = default;

  const VariableBase& GetVariable() const { return *variable_; }
  virtual std::size_t Size() const = 0;
  virtual void Resize(std::size_t n) = 0;  // new rows hold the variable's zero
  // Keeps rows kept[0], kept[1], ... in that order (node removal,
  // reordering), the rows of `kept` (RowGather).
  virtual void Compact(const RowGather& kept) = 0;
  virtual void CopyFrom(const DataColumn& other) = 0;  // same variable, same size
  virtual std::unique_ptr<DataColumn> CloneEmpty() const = 0;
  virtual Value Get(IndexType row) const = 0;
  virtual void Set(IndexType row, const Value& value) = 0;  // value already of the right kind
  virtual void* RawData() = 0;

 private:
  const VariableBase* variable_;
};

template <class T>
class TypedDataColumn final : public DataColumn {
 public:
  explicit TypedDataColumn(const Variable<T>& variable, std::size_t n = 0)
      : DataColumn(variable), zero_(variable.Zero()), values_(n, Stored(variable.Zero())) {}

  T& operator[](IndexType row) { return Ref(values_[row]); }
  const T& operator[](IndexType row) const { return Ref(values_[row]); }
  StorageOf<T>* Data() { return values_.data(); }
  const StorageOf<T>* Data() const { return values_.data(); }
  // The storage itself, for a solver that keeps its own per-node arrays in the
  // column instead of beside it (the DEM particle rows): the vector object
  // lives as long as the column; its size is the database's.
  std::vector<StorageOf<T>>& Values() { return values_; }

  std::size_t Size() const override { return values_.size(); }
  void Resize(std::size_t n) override { values_.resize(n, Stored(zero_)); }
  // A reordering stays in this storage: numpy views remain valid.
  void Compact(const RowGather& kept) override { kept.Apply(values_); }
  void CopyFrom(const DataColumn& other) override {
    values_ = static_cast<const TypedDataColumn&>(other).values_;
  }
  std::unique_ptr<DataColumn> CloneEmpty() const override {
    return std::make_unique<TypedDataColumn>(static_cast<const Variable<T>&>(GetVariable()),
                                             values_.size());
  }
  Value Get(IndexType row) const override { return Value(Ref(values_[row])); }
  void Set(IndexType row, const Value& value) override { Ref(values_[row]) = std::get<T>(value); }
  void* RawData() override { return values_.data(); }

 private:
  static StorageOf<T> Stored(const T& v) {
    if constexpr (std::is_same_v<T, bool>)
      return BoolSlot{v};
    else
      return v;
  }
  static T& Ref(StorageOf<T>& s) {
    if constexpr (std::is_same_v<T, bool>)
      return s.value;
    else
      return s;
  }
  static const T& Ref(const StorageOf<T>& s) {
    if constexpr (std::is_same_v<T, bool>)
      return s.value;
    else
      return s;
  }

  T zero_;
  std::vector<StorageOf<T>> values_;
};

// Makes an empty column of the variable's own kind.
std::unique_ptr<DataColumn> MakeDataColumn(const VariableBase& variable, std::size_t n);

}  // namespace tessera
