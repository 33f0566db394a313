// Conversions of type-erased values to the kind a variable holds.
#include "kernel/core/value.h"

#include <sstream>

namespace tessera {

Value ConvertValueFor(const VariableBase& variable, Value value) {
  const ValueKind target = variable.Kind();
  const ValueKind given = KindOfValue(value);
  if (given == target) return value;
  switch (target) {
    case ValueKind::Double:
      if (given == ValueKind::Int) return static_cast<double>(std::get<int>(value));
      if (given == ValueKind::Bool) return std::get<bool>(value) ? 1.0 : 0.0;
      break;
    case ValueKind::Int:
      if (given == ValueKind::Double) {
        const double d = std::get<double>(value);
        if (d == static_cast<int>(d)) return static_cast<int>(d);
      }
      if (given == ValueKind::Bool) return std::get<bool>(value) ? 1 : 0;
      break;
    case ValueKind::Bool:
      if (given == ValueKind::Int && (std::get<int>(value) == 0 || std::get<int>(value) == 1))
        return std::get<int>(value) == 1;
      if (given == ValueKind::Double &&
          (std::get<double>(value) == 0.0 || std::get<double>(value) == 1.0))
        return std::get<double>(value) == 1.0;
      break;
    case ValueKind::Array3:
      if (given == ValueKind::Vector && std::get<Vector>(value).size() == 3) {
        const Vector& v = std::get<Vector>(value);
        return Array3{v[0], v[1], v[2]};
      }
      break;
    case ValueKind::Vector:
      if (given == ValueKind::Array3) {
        const Array3& a = std::get<Array3>(value);
        Vector v(3);
        v << a[0], a[1], a[2];
        return v;
      }
      if (given == ValueKind::Double) return Vector(Vector::Constant(1, std::get<double>(value)));
      break;
    case ValueKind::Quaternion:
      if (given == ValueKind::Vector && std::get<Vector>(value).size() == 4) {
        const Vector& v = std::get<Vector>(value);
        return Quaternion{v[0], v[1], v[2], v[3]};
      }
      break;
    default:
      break;
  }
  TESSERA_ERROR("variable ", variable.Name(), " holds a ", ValueKindName(target), ", got a ",
                ValueKindName(given), " (", ValueToString(value), ")");
}

Value ZeroValueOf(const VariableBase& variable) {
  switch (variable.Kind()) {
    case ValueKind::Double:
      return static_cast<const Variable<double>&>(variable).Zero();
    case ValueKind::Int:
      return static_cast<const Variable<int>&>(variable).Zero();
    case ValueKind::Bool:
      return static_cast<const Variable<bool>&>(variable).Zero();
    case ValueKind::Array3:
      return static_cast<const Variable<Array3>&>(variable).Zero();
    case ValueKind::Vector:
      return static_cast<const Variable<Vector>&>(variable).Zero();
    case ValueKind::Matrix:
      return static_cast<const Variable<Matrix>&>(variable).Zero();
    case ValueKind::String:
      return static_cast<const Variable<std::string>&>(variable).Zero();
    case ValueKind::Quaternion:
      return static_cast<const Variable<Quaternion>&>(variable).Zero();
  }
  return 0.0;
}

std::string ValueToString(const Value& value) {
  std::ostringstream os;
  os.precision(17);
  std::visit(
      [&os](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Vector>) {
          os << '[' << v.size() << "](";
          for (Eigen::Index i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
          os << ')';
        } else if constexpr (std::is_same_v<T, Matrix>) {
          os << '[' << v.rows() << ',' << v.cols() << "](";
          for (Eigen::Index i = 0; i < v.rows(); ++i) {
            os << (i ? ",(" : "(");
            for (Eigen::Index j = 0; j < v.cols(); ++j) os << (j ? ", " : "") << v(i, j);
            os << ')';
          }
          os << ')';
        } else if constexpr (std::is_same_v<T, Array3>) {
          os << "[3](" << v[0] << ", " << v[1] << ", " << v[2] << ')';
        } else if constexpr (std::is_same_v<T, Quaternion>) {
          os << "[4](" << v.w << ", " << v.x << ", " << v.y << ", " << v.z << ')';
        } else if constexpr (std::is_same_v<T, bool>) {
          os << (v ? "true" : "false");
        } else {
          os << v;
        }
      },
      value);
  return os.str();
}

}  // namespace tessera
