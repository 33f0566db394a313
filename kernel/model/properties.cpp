// Properties: tables and sub-properties.
#include "kernel/model/properties.h"

#include "kernel/core/error.h"

namespace tessera {

bool Properties::HasTable(const VariableBase& x, const VariableBase& y) const {
  return tables_.count({x.Id(), y.Id()}) > 0;
}

const Table& Properties::GetTable(const VariableBase& x, const VariableBase& y) const {
  auto it = tables_.find({x.Id(), y.Id()});
  if (it == tables_.end())
    TESSERA_ERROR("properties ", id_, " have no table ", x.Name(), " -> ", y.Name());
  return it->second;
}

void Properties::SetTable(const VariableBase& x, const VariableBase& y, Table table) {
  tables_[{x.Id(), y.Id()}] = std::move(table);
}

Properties::Pointer Properties::GetSubProperties(IdType id) const {
  auto it = sub_properties_.find(id);
  if (it == sub_properties_.end())
    TESSERA_ERROR("properties ", id_, " have no sub-properties ", id);
  return it->second;
}

}  // namespace tessera
