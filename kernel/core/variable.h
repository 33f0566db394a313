// Variable<T>: a typed key with a name and a dense id.
//
// Variables are defined once (TESSERA_DEFINE_VARIABLE in a .cpp, declared with
// TESSERA_DECLARE_VARIABLE in a header) and register themselves by name on
// construction so .mdpa files, JSON and Python can name them. A 3-vector variable
// comes with _X/_Y/_Z component variables that address one entry of it.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "kernel/core/types.h"

namespace tessera {

// The value types a variable can hold.
enum class ValueKind : std::uint8_t {
  Double,
  Int,
  Bool,
  Array3,
  Vector,
  Matrix,
  String,
  Quaternion
};

const char* ValueKindName(ValueKind kind);

template <class T>
constexpr ValueKind KindOf() {
  if constexpr (std::is_same_v<T, double>)
    return ValueKind::Double;
  else if constexpr (std::is_same_v<T, int>)
    return ValueKind::Int;
  else if constexpr (std::is_same_v<T, bool>)
    return ValueKind::Bool;
  else if constexpr (std::is_same_v<T, Array3>)
    return ValueKind::Array3;
  else if constexpr (std::is_same_v<T, Vector>)
    return ValueKind::Vector;
  else if constexpr (std::is_same_v<T, Matrix>)
    return ValueKind::Matrix;
  else if constexpr (std::is_same_v<T, std::string>)
    return ValueKind::String;
  else if constexpr (std::is_same_v<T, Quaternion>)
    return ValueKind::Quaternion;
  else
    static_assert(!sizeof(T), "unsupported variable type");
}

class VariableBase {
 public:
  VariableBase(const VariableBase&) = delete;
  VariableBase& operator=(const VariableBase&) = delete;
  virtual ~VariableBase() = default;

  const std::string& Name() const { return name_; }
  std::uint32_t Id() const { return id_; }
  ValueKind Kind() const { return kind_; }

  // A component variable (DISPLACEMENT_X) addresses entry ComponentIndex() of its
  // Source() (DISPLACEMENT); its own kind is Double.
  bool IsComponent() const { return source_ != nullptr; }
  const VariableBase* Source() const { return source_; }
  int ComponentIndex() const { return component_; }

  // The variable that owns the storage: the source for components, else itself.
  const VariableBase& StorageVariable() const { return source_ ? *source_ : *this; }

 protected:
  VariableBase(std::string name, ValueKind kind, const VariableBase* source, int component);

 private:
  std::string name_;
  std::uint32_t id_ = 0;
  ValueKind kind_;
  const VariableBase* source_ = nullptr;
  int component_ = -1;
};

template <class T>
class Variable : public VariableBase {
 public:
  using ValueType = T;

  explicit Variable(std::string name, T zero = T{})
      : VariableBase(std::move(name), KindOf<T>(), nullptr, -1), zero_(std::move(zero)) {}

  // Component of a 3-vector variable.
  Variable(std::string name, const Variable<Array3>& source,
           int component) requires std::is_same_v<T, double>
      : VariableBase(std::move(name), ValueKind::Double, &source, component), zero_(0.0) {}

  const T& Zero() const { return zero_; }

 private:
  T zero_;
};

}  // namespace tessera

// Declares a variable in a header; defines it (and registers it) in one .cpp.
#define TESSERA_DECLARE_VARIABLE(type, name) extern const ::tessera::Variable<type> name
#define TESSERA_DEFINE_VARIABLE(type, name) const ::tessera::Variable<type> name(#name)
#define TESSERA_DECLARE_3D_VARIABLE_WITH_COMPONENTS(name)   \
  extern const ::tessera::Variable<::tessera::Array3> name; \
  extern const ::tessera::Variable<double> name##_X;        \
  extern const ::tessera::Variable<double> name##_Y;        \
  extern const ::tessera::Variable<double> name##_Z
#define TESSERA_DEFINE_3D_VARIABLE_WITH_COMPONENTS(name)           \
  const ::tessera::Variable<::tessera::Array3> name(#name);        \
  const ::tessera::Variable<double> name##_X(#name "_X", name, 0); \
  const ::tessera::Variable<double> name##_Y(#name "_Y", name, 1); \
  const ::tessera::Variable<double> name##_Z(#name "_Z", name, 2)
