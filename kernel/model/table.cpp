// Piecewise-linear tables.
#include "kernel/model/table.h"

#include <algorithm>

#include "kernel/core/error.h"

namespace tessera {

void Table::AddRow(double x, double y) {
  if (!x_.empty() && x <= x_.back())
    TESSERA_ERROR("table rows must have increasing ", x_name_.empty() ? "x" : x_name_, ": ", x,
                  " follows ", x_.back());
  x_.push_back(x);
  y_.push_back(y);
}

double Table::GetValue(double x) const {
  if (x_.empty()) return 0.0;
  if (x_.size() == 1) return y_.front();
  // The segment holding x; beyond the ends, the first or the last one.
  auto i = static_cast<std::size_t>(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin());
  i = std::clamp<std::size_t>(i, 1, x_.size() - 1);
  const double t = (x - x_[i - 1]) / (x_[i] - x_[i - 1]);
  return y_[i - 1] + t * (y_[i] - y_[i - 1]);
}

double Table::GetDerivative(double x) const {
  if (x_.size() < 2 || x < x_.front() || x > x_.back()) return 0.0;
  auto i = static_cast<std::size_t>(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin());
  i = std::clamp<std::size_t>(i, 1, x_.size() - 1);
  return (y_[i] - y_[i - 1]) / (x_[i] - x_[i - 1]);
}

}  // namespace tessera
