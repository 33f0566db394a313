// RowGather: a gather of rows (the row at kept[k] moves to position k, the
// others go) described once as runs of consecutive source rows, so that
// every column of a table moves by block copies (memmove for plain values)
// instead of one element at a time. A distributed DEM run's reorder at a
// search keeps its rows in long runs (a few rows arrive or leave among
// thousands) and the nodal database moves tens of columns with the same
// gather: element by element that cost ≈ 30 instructions per node and column.
// Where the rows are scattered (a spatial sort), the runs are short and each
// column is gathered element by element as before.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "kernel/core/types.h"

namespace tessera {

class RowGather {
 public:
  // `kept` must outlive this object (each row listed at most once: the
  // callers check it).
  explicit RowGather(std::span<const IndexType> kept) : kept_(kept) {
    for (std::size_t k = 0; k < kept.size();) {
      std::size_t end = k + 1;
      while (end < kept.size() && kept[end] == kept[end - 1] + 1) ++end;
      runs_.push_back(Run{kept[k], end - k});
      k = end;
    }
    // Below about 8 rows per run a block copy's call costs more than it saves.
    by_runs_ = runs_.size() * 8 <= kept.size();
  }

  std::size_t Size() const { return kept_.size(); }
  // Whether `rows` rows stay as they are (kept whole and in order).
  bool Identity(std::size_t rows) const {
    return kept_.size() == rows && (runs_.empty() || (runs_.size() == 1 && runs_[0].first == 0));
  }

  // `out` = the gathered rows of `in` (its previous contents dropped).
  template <class Vector>
  void Gather(const Vector& in, Vector& out) const {
    out.clear();
    out.reserve(kept_.size());
    if (by_runs_) {
      for (const Run& r : runs_)
        out.insert(out.end(), in.begin() + r.first, in.begin() + r.first + r.count);
    } else {
      for (IndexType i : kept_) out.push_back(in[i]);
    }
  }

  // `values` holds the gathered rows. A reordering (as many rows kept as it
  // holds) stays in the same storage, so that views of it (numpy, a shared
  // column) remain valid; a removal gets new storage.
  template <class Vector>
  void Apply(Vector& values) const {
    if (Identity(values.size())) return;
    Vector out;
    Gather(values, out);
    if (out.size() == values.size())
      std::copy(out.begin(), out.end(), values.begin());
    else
      values.swap(out);
  }

  // `values` holds the gathered rows, in new storage.
  template <class Vector>
  void ApplyAnew(Vector& values) const {
    if (Identity(values.size())) return;
    Vector out;
    Gather(values, out);
    values.swap(out);
  }

 private:
  struct Run {
    IndexType first;    // the first source row
    std::size_t count;  // rows from there on
  };
  std::span<const IndexType> kept_;
  std::vector<Run> runs_;
  bool by_runs_ = false;
};

}  // namespace tessera
