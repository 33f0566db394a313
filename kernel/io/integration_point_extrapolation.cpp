// Extrapolation of integration point values to nodes and their nodal average
// (formulas in the header).
#include "kernel/io/integration_point_extrapolation.h"

#include <Eigen/QR>
#include <cmath>
#include <map>
#include <utility>

#include "kernel/core/error.h"
#include "kernel/geometries/geometry_type.h"

namespace tessera {
namespace {

// The pseudo-inverse of N(p, a) = N_a(xi_p) for the rule of `type` with
// `points` integration points (n x m).
Eigen::MatrixXd ExtrapolationMatrix(const GeometryType& type, std::size_t points,
                                    const Entity& entity, std::string_view setting) {
  const std::vector<IntegrationPoint>* rule = nullptr;
  if (type.IntegrationPoints(type.DefaultIntegrationOrder()).size() == points)
    rule = &type.IntegrationPoints(type.DefaultIntegrationOrder());
  for (int order = 1; rule == nullptr && order <= type.MaxIntegrationOrder(); ++order)
    if (type.IntegrationPoints(order).size() == points) rule = &type.IntegrationPoints(order);
  if (rule == nullptr)
    TESSERA_ERROR(setting, ": ", entity.Info(), " gives values at ", points,
                  " integration points, and no integration rule of its geometry ", type.Name(),
                  " has that many points");
  const int n = type.PointsNumber();
  // Row-major: ShapeFunctionsValues writes one row (all nodes at one point).
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> N(
      static_cast<Eigen::Index>(points), n);
  for (std::size_t p = 0; p < points; ++p)
    type.ShapeFunctionsValues((*rule)[p].local, &N(static_cast<Eigen::Index>(p), 0));
  return Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(Eigen::MatrixXd(N))
      .pseudoInverse();
}

template <class T>
bool SameShape(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, Vector> || std::is_same_v<T, Matrix>)
    return a.rows() == b.rows() && a.cols() == b.cols();
  else
    return true;
}

template <class T>
T ZeroLike(const T& value) {
  if constexpr (std::is_same_v<T, Vector> || std::is_same_v<T, Matrix>)
    return T::Zero(value.rows(), value.cols());
  else
    return T{};
}

template <class T>
NodalExtrapolation Extrapolate(ModelPart& model_part, const Variable<T>& variable,
                               bool area_average, std::string_view setting) {
  const std::size_t rows = model_part.Nodal().Size();
  std::vector<T> sums(rows);
  std::vector<double> weights(rows, 0.0);
  std::vector<char> started(rows, 0);
  std::map<std::pair<const GeometryType*, std::size_t>, Eigen::MatrixXd> matrices;
  const ProcessInfo& info = model_part.GetProcessInfo();
  std::vector<T> values;
  const T* shape = nullptr;  // the first value, to check sizes against
  T first_value{};

  for (Element& element : model_part.Elements()) {
    element.CalculateOnIntegrationPoints(variable, values, info);
    if (values.empty()) continue;
    if (shape == nullptr) {
      first_value = values.front();
      shape = &first_value;
    }
    for (const T& value : values)
      if (!SameShape(value, *shape))
        TESSERA_ERROR(setting, ": ", element.Info(), " gives ", variable.Name(),
                      " values of a size different from the other elements' (or its own)");
    const Geometry& geometry = element.GetGeometry();
    const GeometryType& type = geometry.Type();
    auto key = std::make_pair(&type, values.size());
    auto it = matrices.find(key);
    if (it == matrices.end())
      it = matrices.emplace(key, ExtrapolationMatrix(type, values.size(), element, setting)).first;
    const Eigen::MatrixXd& E = it->second;
    double weight = 1.0;
    if (area_average) {
      const auto X = geometry.InitialPoints();
      weight = std::abs(type.DomainSize(std::span<const Array3>(X.data(), X.size())));
    }
    for (std::size_t a = 0; a < geometry.PointsNumber(); ++a) {
      T nodal = ZeroLike(*shape);
      for (std::size_t p = 0; p < values.size(); ++p)
        nodal += E(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(p)) * values[p];
      const IndexType row = geometry.NodeIndex(a);
      if (!started[row]) {
        sums[row] = ZeroLike(*shape);
        started[row] = 1;
      }
      sums[row] += weight * nodal;
      weights[row] += weight;
    }
  }

  NodalExtrapolation result;
  result.values.resize(rows);
  result.weights = std::move(weights);
  const T zero = shape != nullptr ? ZeroLike(*shape) : T{};
  for (std::size_t row = 0; row < rows; ++row) {
    if (result.weights[row] > 0.0)
      result.values[row] = T((1.0 / result.weights[row]) * sums[row]);
    else
      result.values[row] = zero;
  }
  return result;
}

}  // namespace

NodalExtrapolation ExtrapolateIntegrationValuesToNodes(ModelPart& model_part,
                                                       const VariableBase& variable,
                                                       bool area_average,
                                                       std::string_view setting) {
  const ValueKind kind = variable.IsComponent() ? ValueKind::Double : variable.Kind();
  switch (kind) {
    case ValueKind::Double:
      return Extrapolate(model_part, static_cast<const Variable<double>&>(variable), area_average,
                         setting);
    case ValueKind::Array3:
      return Extrapolate(model_part, static_cast<const Variable<Array3>&>(variable), area_average,
                         setting);
    case ValueKind::Vector:
      return Extrapolate(model_part, static_cast<const Variable<Vector>&>(variable), area_average,
                         setting);
    case ValueKind::Matrix:
      return Extrapolate(model_part, static_cast<const Variable<Matrix>&>(variable), area_average,
                         setting);
    default:
      TESSERA_ERROR(setting, " lists ", variable.Name(), ", which holds ", ValueKindName(kind),
                    "; integration point values exist for double, Array3, Vector and Matrix");
  }
}

}  // namespace tessera
