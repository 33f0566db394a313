// Quadrilateral4: bilinear shape functions on [-1, 1]^2 and tensor Gauss rules.
#include "kernel/geometries/quadrilateral4.h"

#include <array>
#include <cmath>

#include "kernel/core/error.h"

namespace tessera {

namespace {
// Local coordinates of the nodes; N_a = (1 + xi xi_a)(1 + eta eta_a) / 4.
constexpr double kXi[4] = {-1.0, 1.0, 1.0, -1.0};
constexpr double kEta[4] = {-1.0, -1.0, 1.0, 1.0};
}  // namespace

Quadrilateral4::Quadrilateral4(int working_dimension) : GeometryType(working_dimension) {
  TESSERA_CHECK(working_dimension == 2 || working_dimension == 3,
                "Quadrilateral geometry: working space dimension must be 2 or 3, got ",
                working_dimension);
}

std::string_view Quadrilateral4::Name() const {
  return WorkingSpaceDimension() == 2 ? "Quadrilateral2D4" : "Quadrilateral3D4";
}

void Quadrilateral4::ShapeFunctionsValues(const Array3& local, double* N) const {
  for (int a = 0; a < 4; ++a) N[a] = 0.25 * (1.0 + local[0] * kXi[a]) * (1.0 + local[1] * kEta[a]);
}

void Quadrilateral4::LocalGradients(const Array3& local, double* dN_dxi) const {
  for (int a = 0; a < 4; ++a) {
    dN_dxi[2 * a] = 0.25 * kXi[a] * (1.0 + local[1] * kEta[a]);
    dN_dxi[2 * a + 1] = 0.25 * kEta[a] * (1.0 + local[0] * kXi[a]);
  }
}

const std::vector<Array3>& Quadrilateral4::LocalCoordinatesOfNodes() const {
  static const std::vector<Array3> nodes{
      {-1.0, -1.0, 0.0}, {1.0, -1.0, 0.0}, {1.0, 1.0, 0.0}, {-1.0, 1.0, 0.0}};
  return nodes;
}

const std::vector<IntegrationPoint>& Quadrilateral4::IntegrationPoints(int order) const {
  CheckOrder(order);
  static const auto rules = [] {
    std::array<std::vector<IntegrationPoint>, kMaxIntegrationOrder + 1> r;
    for (int n = 1; n <= kMaxIntegrationOrder; ++n) {
      const auto gauss = GaussLegendre(n);
      for (const auto& [y, wy] : gauss)
        for (const auto& [x, wx] : gauss) r[n].push_back({{x, y, 0.0}, wx * wy});
    }
    return r;
  }();
  return rules[order];
}

int Quadrilateral4::ExactPolynomialDegree(int order) const {
  CheckOrder(order);
  return 2 * order - 1;
}

const std::vector<std::vector<int>>& Quadrilateral4::EdgesNodes() const {
  static const std::vector<std::vector<int>> edges{{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  return edges;
}

const std::vector<std::vector<int>>& Quadrilateral4::FacesNodes() const { return EdgesNodes(); }

bool Quadrilateral4::IsInsideLocalSpace(const Array3& local, double tolerance) const {
  return std::abs(local[0]) <= 1.0 + tolerance && std::abs(local[1]) <= 1.0 + tolerance;
}

}  // namespace tessera
