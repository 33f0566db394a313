// Table: a piecewise-linear function y(x) given by rows (x, y), as the .mdpa
// `Begin Table` blocks define them (e.g. TIME -> VELOCITY_X).
#pragma once

#include <string>
#include <vector>

namespace tessera {

class Table {
 public:
  Table() = default;
  Table(std::string x_name, std::string y_name)
      : x_name_(std::move(x_name)), y_name_(std::move(y_name)) {}

  // Rows must come with increasing x; an x not above the last one is an error.
  void AddRow(double x, double y);
  // Linear interpolation; outside the rows, the line of the first or last
  // segment goes on, as Kratos' tables do (a Kratos deck whose ramp ends before
  // its run, like the DEM forces_and_moments test's, relies on it). A table
  // meant to hold its last value needs a last row that repeats it. One row: a
  // constant.
  double GetValue(double x) const;
  // dy/dx of the segment containing x (0 outside the rows).
  double GetDerivative(double x) const;

  std::size_t Size() const { return x_.size(); }
  const std::vector<double>& X() const { return x_; }
  const std::vector<double>& Y() const { return y_; }
  const std::string& XName() const { return x_name_; }
  const std::string& YName() const { return y_name_; }

 private:
  std::string x_name_, y_name_;
  std::vector<double> x_, y_;
};

}  // namespace tessera
