// Type-erased access to DataValueContainer.
#include "kernel/core/data_value_container.h"

namespace tessera {

Value& DataValueContainer::Slot(const VariableBase& variable) {
  for (auto& [key, value] : data_)
    if (key == variable.Id()) return value;
  data_.emplace_back(variable.Id(), ZeroValueOf(variable));
  return data_.back().second;
}

void DataValueContainer::SetValue(const VariableBase& variable, const Value& value) {
  if (variable.IsComponent()) {
    const Value converted = ConvertValueFor(variable, value);
    std::get<Array3>(Slot(*variable.Source()))[variable.ComponentIndex()] =
        std::get<double>(converted);
    return;
  }
  Slot(variable) = ConvertValueFor(variable, value);
}

Value DataValueContainer::GetValue(const VariableBase& variable) const {
  if (variable.IsComponent()) {
    const Value* v = Find(variable.Source()->Id());
    return v ? std::get<Array3>(*v)[variable.ComponentIndex()] : 0.0;
  }
  const Value* v = Find(variable.Id());
  return v ? *v : ZeroValueOf(variable);
}

void DataValueContainer::Erase(const VariableBase& variable) {
  const std::uint32_t id = variable.StorageVariable().Id();
  std::erase_if(data_, [id](const auto& entry) { return entry.first == id; });
}

}  // namespace tessera
