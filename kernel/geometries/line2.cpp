// Line2: linear shape functions on [-1, 1] and Gauss-Legendre rules.
#include "kernel/geometries/line2.h"

#include <array>
#include <cmath>

#include "kernel/core/error.h"

namespace tessera {

Line2::Line2(int working_dimension) : GeometryType(working_dimension) {
  TESSERA_CHECK(working_dimension == 2 || working_dimension == 3,
                "Line geometry: working space dimension must be 2 or 3, got ", working_dimension);
}

std::string_view Line2::Name() const {
  return WorkingSpaceDimension() == 2 ? "Line2D2" : "Line3D2";
}

void Line2::ShapeFunctionsValues(const Array3& local, double* N) const {
  N[0] = 0.5 * (1.0 - local[0]);
  N[1] = 0.5 * (1.0 + local[0]);
}

void Line2::LocalGradients(const Array3& /*local*/, double* dN_dxi) const {
  dN_dxi[0] = -0.5;
  dN_dxi[1] = 0.5;
}

const std::vector<Array3>& Line2::LocalCoordinatesOfNodes() const {
  static const std::vector<Array3> nodes{{-1.0, 0.0, 0.0}, {1.0, 0.0, 0.0}};
  return nodes;
}

const std::vector<IntegrationPoint>& Line2::IntegrationPoints(int order) const {
  CheckOrder(order);
  static const auto rules = [] {
    std::array<std::vector<IntegrationPoint>, kMaxIntegrationOrder + 1> r;
    for (int n = 1; n <= kMaxIntegrationOrder; ++n)
      for (const auto& [x, w] : GaussLegendre(n)) r[n].push_back({{x, 0.0, 0.0}, w});
    return r;
  }();
  return rules[order];
}

int Line2::ExactPolynomialDegree(int order) const {
  CheckOrder(order);
  return 2 * order - 1;
}

const std::vector<std::vector<int>>& Line2::EdgesNodes() const {
  static const std::vector<std::vector<int>> edges{{0, 1}};
  return edges;
}

const std::vector<std::vector<int>>& Line2::FacesNodes() const {
  static const std::vector<std::vector<int>> faces{{0}, {1}};
  return faces;
}

bool Line2::IsInsideLocalSpace(const Array3& local, double tolerance) const {
  return std::abs(local[0]) <= 1.0 + tolerance;
}

}  // namespace tessera
