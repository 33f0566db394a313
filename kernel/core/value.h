// Value: a type-erased variable value (what .mdpa files, JSON and Python hand in)
// and the conversions between it and typed values.
#pragma once

#include <string>
#include <variant>

#include "kernel/core/error.h"
#include "kernel/core/variable.h"

namespace tessera {

// Alternatives in the order of ValueKind.
using Value = std::variant<double, int, bool, Array3, Vector, Matrix, std::string, Quaternion>;

inline ValueKind KindOfValue(const Value& v) { return static_cast<ValueKind>(v.index()); }

// Converts `value` to the kind `variable` holds, widening where it is lossless
// (int -> double, int 0/1 -> bool, 3-entry vector -> Array3); anything else is an
// error naming the variable.
Value ConvertValueFor(const VariableBase& variable, Value value);

// The zero of a variable's kind, as a Value.
Value ZeroValueOf(const VariableBase& variable);

std::string ValueToString(const Value& v);

}  // namespace tessera
