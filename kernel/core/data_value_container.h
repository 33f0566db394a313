// DataValueContainer: a small map from variables to values, for data that is
// not per node (Properties, ProcessInfo, model part data, element data).
//
// A linear vector of (id, value) pairs: these containers hold a handful of
// entries, so a scan beats hashing and keeps insertion order for printing.
// Component variables (VELOCITY_X) read and write an entry of their source.
#pragma once

#include <utility>
#include <vector>

#include "kernel/core/value.h"

namespace tessera {

class DataValueContainer {
 public:
  template <class T>
  bool Has(const Variable<T>& variable) const {
    return Find(variable.StorageVariable().Id()) != nullptr;
  }
  bool Has(const VariableBase& variable) const {
    return Find(variable.StorageVariable().Id()) != nullptr;
  }

  // Returns the stored value, or the variable's zero when absent (Kratos semantics).
  template <class T>
  T GetValue(const Variable<T>& variable) const {
    if constexpr (std::is_same_v<T, double>) {
      if (variable.IsComponent()) {
        const Value* v = Find(variable.Source()->Id());
        return v ? std::get<Array3>(*v)[variable.ComponentIndex()] : 0.0;
      }
    }
    const Value* v = Find(variable.Id());
    return v ? std::get<T>(*v) : variable.Zero();
  }

  // Reference to the stored value, inserting the zero first if absent.
  template <class T>
  T& GetOrCreate(const Variable<T>& variable) {
    if constexpr (std::is_same_v<T, double>) {
      if (variable.IsComponent()) {
        Value& v = Slot(*variable.Source());
        return std::get<Array3>(v)[variable.ComponentIndex()];
      }
    }
    return std::get<T>(Slot(variable));
  }

  template <class T>
  void SetValue(const Variable<T>& variable, const T& value) {
    GetOrCreate(variable) = value;
  }
  // Type-erased set: converts `value` to the variable's kind (error if it cannot).
  void SetValue(const VariableBase& variable, const Value& value);
  // Type-erased get (the zero if absent).
  Value GetValue(const VariableBase& variable) const;

  void Erase(const VariableBase& variable);
  void Clear() { data_.clear(); }
  std::size_t Size() const { return data_.size(); }
  bool Empty() const { return data_.empty(); }
  const std::vector<std::pair<std::uint32_t, Value>>& Entries() const { return data_; }

 private:
  const Value* Find(std::uint32_t id) const {
    for (const auto& [key, value] : data_)
      if (key == id) return &value;
    return nullptr;
  }
  Value& Slot(const VariableBase& variable);

  std::vector<std::pair<std::uint32_t, Value>> data_;
};

}  // namespace tessera
