// A struct of named terms (energies, phase timings, memory parts) as a
// Python dict, by its table of (name, member) pairs: what the strategies'
// GetEnergies, GetTimings and GetMemoryReport return.
#pragma once

#include <pybind11/pybind11.h>

namespace tessera::dem {

template <class Terms, class Table>
pybind11::dict TermsDict(const Terms& terms, const Table& table) {
  pybind11::dict d;
  for (const auto& [name, member] : table) d[name] = terms.*member;
  return d;
}

// The same with 'total', their sum (Terms::Total()).
template <class Terms, class Table>
pybind11::dict TotalsDict(const Terms& terms, const Table& table) {
  pybind11::dict d = TermsDict(terms, table);
  d["total"] = terms.Total();
  return d;
}

}  // namespace tessera::dem
