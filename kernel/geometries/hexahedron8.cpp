// Hexahedron8: trilinear shape functions on [-1, 1]^3 and tensor Gauss rules.
#include "kernel/geometries/hexahedron8.h"

#include <array>
#include <cmath>

namespace tessera {

namespace {
// Local coordinates of the nodes; N_a = (1 + xi xi_a)(1 + eta eta_a)(1 + zeta zeta_a) / 8.
constexpr double kXi[8] = {-1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0};
constexpr double kEta[8] = {-1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0};
constexpr double kZeta[8] = {-1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0};
}  // namespace

void Hexahedron8::ShapeFunctionsValues(const Array3& local, double* N) const {
  for (int a = 0; a < 8; ++a)
    N[a] = 0.125 * (1.0 + local[0] * kXi[a]) * (1.0 + local[1] * kEta[a]) *
           (1.0 + local[2] * kZeta[a]);
}

void Hexahedron8::LocalGradients(const Array3& local, double* dN_dxi) const {
  for (int a = 0; a < 8; ++a) {
    const double fx = 1.0 + local[0] * kXi[a], fy = 1.0 + local[1] * kEta[a],
                 fz = 1.0 + local[2] * kZeta[a];
    dN_dxi[3 * a] = 0.125 * kXi[a] * fy * fz;
    dN_dxi[3 * a + 1] = 0.125 * kEta[a] * fx * fz;
    dN_dxi[3 * a + 2] = 0.125 * kZeta[a] * fx * fy;
  }
}

const std::vector<Array3>& Hexahedron8::LocalCoordinatesOfNodes() const {
  static const std::vector<Array3> nodes = [] {
    std::vector<Array3> n;
    for (int a = 0; a < 8; ++a) n.push_back({kXi[a], kEta[a], kZeta[a]});
    return n;
  }();
  return nodes;
}

const std::vector<IntegrationPoint>& Hexahedron8::IntegrationPoints(int order) const {
  CheckOrder(order);
  static const auto rules = [] {
    std::array<std::vector<IntegrationPoint>, kMaxIntegrationOrder + 1> r;
    for (int n = 1; n <= kMaxIntegrationOrder; ++n) {
      const auto gauss = GaussLegendre(n);
      for (const auto& [z, wz] : gauss)
        for (const auto& [y, wy] : gauss)
          for (const auto& [x, wx] : gauss) r[n].push_back({{x, y, z}, wx * wy * wz});
    }
    return r;
  }();
  return rules[order];
}

int Hexahedron8::ExactPolynomialDegree(int order) const {
  CheckOrder(order);
  return 2 * order - 1;
}

const std::vector<std::vector<int>>& Hexahedron8::EdgesNodes() const {
  static const std::vector<std::vector<int>> edges{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                                   {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  return edges;
}

const std::vector<std::vector<int>>& Hexahedron8::FacesNodes() const {
  static const std::vector<std::vector<int>> faces{{3, 2, 1, 0}, {0, 1, 5, 4}, {1, 2, 6, 5},
                                                   {2, 3, 7, 6}, {3, 0, 4, 7}, {4, 5, 6, 7}};
  return faces;
}

bool Hexahedron8::IsInsideLocalSpace(const Array3& local, double tolerance) const {
  return std::abs(local[0]) <= 1.0 + tolerance && std::abs(local[1]) <= 1.0 + tolerance &&
         std::abs(local[2]) <= 1.0 + tolerance;
}

}  // namespace tessera
