// Averages of integration point results, shared by the output writers.
#include "kernel/io/integration_point_average.h"

#include <vector>

#include "kernel/core/error.h"

namespace tessera {
namespace {

template <class T>
Value AverageOf(const std::vector<T>& values, const VariableBase& variable, const Entity& entity,
                std::string_view setting) {
  if (values.empty()) return T{};
  T sum = values.front();
  for (std::size_t i = 1; i < values.size(); ++i) {
    if constexpr (std::is_same_v<T, Vector> || std::is_same_v<T, Matrix>) {
      if (values[i].rows() != sum.rows() || values[i].cols() != sum.cols())
        TESSERA_ERROR(setting, ": ", entity.Info(), " gives ", variable.Name(),
                      " values of different sizes at its integration points");
    }
    sum += values[i];
  }
  if constexpr (std::is_same_v<T, Array3>)
    return sum * (1.0 / values.size());
  else if constexpr (std::is_same_v<T, double>)
    return sum / values.size();
  else
    return T(sum / static_cast<double>(values.size()));
}

template <class T>
Value Average(Entity& entity, const VariableBase& variable, const ProcessInfo& info,
              std::string_view setting) {
  std::vector<T> values;
  entity.CalculateOnIntegrationPoints(static_cast<const Variable<T>&>(variable), values, info);
  return AverageOf(values, variable, entity, setting);
}

}  // namespace

Value IntegrationPointAverage(Entity& entity, const VariableBase& variable, const ProcessInfo& info,
                              std::string_view setting) {
  const ValueKind kind = variable.IsComponent() ? ValueKind::Double : variable.Kind();
  switch (kind) {
    case ValueKind::Double:
      return Average<double>(entity, variable, info, setting);
    case ValueKind::Array3:
      return Average<Array3>(entity, variable, info, setting);
    case ValueKind::Vector:
      return Average<Vector>(entity, variable, info, setting);
    case ValueKind::Matrix:
      return Average<Matrix>(entity, variable, info, setting);
    default:
      TESSERA_ERROR(setting, " lists ", variable.Name(), ", which holds ", ValueKindName(kind),
                    "; integration point values exist for double, Array3, Vector and Matrix");
  }
}

}  // namespace tessera
