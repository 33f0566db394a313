// pybind11 conversions shared by the binding files: Array3 <-> numpy (3,)
// arrays (any sequence of three numbers is accepted), and type-erased Values
// <-> Python objects, converted according to the variable's kind.
#pragma once

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernel/core/value.h"

namespace pybind11::detail {

template <>
struct type_caster<tessera::Array3> {
  PYBIND11_TYPE_CASTER(tessera::Array3, const_name("Array3"));

  bool load(handle src, bool) {
    if (!src || isinstance<str>(src) || !PySequence_Check(src.ptr())) return false;
    sequence seq = reinterpret_borrow<sequence>(src);
    if (seq.size() != 3) return false;
    for (int i = 0; i < 3; ++i) {
      object item = seq[i];
      if (!PyNumber_Check(item.ptr())) return false;
      value[i] = item.cast<double>();
    }
    return true;
  }
  static handle cast(const tessera::Array3& a, return_value_policy, handle) {
    array_t<double> out(3);
    auto m = out.mutable_unchecked<1>();
    for (int i = 0; i < 3; ++i) m(i) = a[i];
    return out.release();
  }
};

}  // namespace pybind11::detail

namespace tessera::python {

// Converts a Python object to a Value of the kind `variable` holds; errors name the variable.
Value ValueFromPython(const VariableBase& variable, pybind11::handle object);
pybind11::object ValueToPython(const Value& value);

}  // namespace tessera::python
