// Properties: the material and section data shared by elements and conditions
// (Kratos' Properties): values by variable, tables keyed by their (x, y)
// variables, sub-properties (e.g. the contact data of a DEM material pair) and
// the constitutive law prototype.
#pragma once

#include <map>
#include <memory>
#include <utility>

#include "kernel/core/data_value_container.h"
#include "kernel/model/table.h"

namespace tessera {

class ConstitutiveLaw;

class Properties {
 public:
  using Pointer = std::shared_ptr<Properties>;

  explicit Properties(IdType id = 0) : id_(id) {}

  IdType Id() const { return id_; }

  template <class T>
  T GetValue(const Variable<T>& variable) const {
    return data_.GetValue(variable);
  }
  template <class T>
  T& operator[](const Variable<T>& variable) {
    return data_.GetOrCreate(variable);
  }
  template <class T>
  void SetValue(const Variable<T>& variable, const T& value) {
    data_.SetValue(variable, value);
  }
  bool Has(const VariableBase& variable) const { return data_.Has(variable); }
  DataValueContainer& Data() { return data_; }
  const DataValueContainer& Data() const { return data_; }

  bool HasTable(const VariableBase& x, const VariableBase& y) const;
  const Table& GetTable(const VariableBase& x, const VariableBase& y) const;
  void SetTable(const VariableBase& x, const VariableBase& y, Table table);
  const std::map<std::pair<std::uint32_t, std::uint32_t>, Table>& Tables() const { return tables_; }

  bool HasSubProperties(IdType id) const { return sub_properties_.count(id) > 0; }
  Pointer GetSubProperties(IdType id) const;
  void AddSubProperties(Pointer properties) {
    sub_properties_[properties->Id()] = std::move(properties);
  }
  std::size_t NumberOfSubproperties() const { return sub_properties_.size(); }
  const std::map<IdType, Pointer>& SubProperties() const { return sub_properties_; }

  const std::shared_ptr<ConstitutiveLaw>& GetConstitutiveLaw() const { return law_; }
  void SetConstitutiveLaw(std::shared_ptr<ConstitutiveLaw> law) { law_ = std::move(law); }

 private:
  IdType id_;
  DataValueContainer data_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Table> tables_;
  std::map<IdType, Pointer> sub_properties_;
  std::shared_ptr<ConstitutiveLaw> law_;
};

}  // namespace tessera
