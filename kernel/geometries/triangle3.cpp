// Triangle3: linear shape functions on the unit triangle and its symmetric and
// collapsed Gauss integration rules.
#include "kernel/geometries/triangle3.h"

#include <array>
#include <cmath>

#include "kernel/core/error.h"

namespace tessera {

namespace {

// Collapsed (Duffy) rule: m-point Gauss-Legendre in u and v on [0, 1] mapped by
// xi = u, eta = (1 - u) v, with Jacobian (1 - u). A monomial of degree p becomes
// a polynomial of degree p + 1 in u and p in v, so the rule is exact for
// p <= 2m - 2.
std::vector<IntegrationPoint> CollapsedRule(int m) {
  std::vector<IntegrationPoint> rule;
  const auto gauss = GaussLegendre(m);
  for (const auto& [xu, wu] : gauss) {
    const double u = 0.5 * (1.0 + xu);
    for (const auto& [xv, wv] : gauss) {
      const double v = 0.5 * (1.0 + xv);
      rule.push_back({{u, (1.0 - u) * v, 0.0}, 0.25 * wu * wv * (1.0 - u)});
    }
  }
  return rule;
}

std::array<std::vector<IntegrationPoint>, GeometryType::kMaxIntegrationOrder + 1> BuildRules() {
  std::array<std::vector<IntegrationPoint>, GeometryType::kMaxIntegrationOrder + 1> rules;
  // Weights below are for the reference triangle of area 1/2.
  AddBarycentricOrbit(rules[1], {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0}, 0.5);
  AddBarycentricOrbit(rules[2], {1.0 / 6.0, 1.0 / 6.0, 2.0 / 3.0}, 1.0 / 6.0);
  // Radon (1948): centroid plus two orbits (a, a, 1 - 2a), closed form.
  const double s15 = std::sqrt(15.0);
  const double a1 = (6.0 - s15) / 21.0, a2 = (6.0 + s15) / 21.0;
  AddBarycentricOrbit(rules[3], {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0}, 9.0 / 80.0);
  AddBarycentricOrbit(rules[3], {a1, a1, 1.0 - 2.0 * a1}, (155.0 - s15) / 2400.0);
  AddBarycentricOrbit(rules[3], {a2, a2, 1.0 - 2.0 * a2}, (155.0 + s15) / 2400.0);
  for (int n = 4; n <= GeometryType::kMaxIntegrationOrder; ++n) rules[n] = CollapsedRule(n + 1);
  return rules;
}

}  // namespace

Triangle3::Triangle3(int working_dimension) : GeometryType(working_dimension) {
  TESSERA_CHECK(working_dimension == 2 || working_dimension == 3,
                "Triangle geometry: working space dimension must be 2 or 3, got ",
                working_dimension);
}

std::string_view Triangle3::Name() const {
  return WorkingSpaceDimension() == 2 ? "Triangle2D3" : "Triangle3D3";
}

void Triangle3::ShapeFunctionsValues(const Array3& local, double* N) const {
  N[0] = 1.0 - local[0] - local[1];
  N[1] = local[0];
  N[2] = local[1];
}

void Triangle3::LocalGradients(const Array3& /*local*/, double* dN_dxi) const {
  static constexpr double dN[6] = {-1.0, -1.0, 1.0, 0.0, 0.0, 1.0};
  for (int i = 0; i < 6; ++i) dN_dxi[i] = dN[i];
}

const std::vector<Array3>& Triangle3::LocalCoordinatesOfNodes() const {
  static const std::vector<Array3> nodes{{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}};
  return nodes;
}

const std::vector<IntegrationPoint>& Triangle3::IntegrationPoints(int order) const {
  CheckOrder(order);
  static const auto rules = BuildRules();
  return rules[order];
}

int Triangle3::ExactPolynomialDegree(int order) const {
  CheckOrder(order);
  static constexpr int kDegree[4] = {0, 1, 2, 5};
  return order <= 3 ? kDegree[order] : 2 * order;
}

const std::vector<std::vector<int>>& Triangle3::EdgesNodes() const {
  static const std::vector<std::vector<int>> edges{{1, 2}, {2, 0}, {0, 1}};
  return edges;
}

const std::vector<std::vector<int>>& Triangle3::FacesNodes() const { return EdgesNodes(); }

bool Triangle3::IsInsideLocalSpace(const Array3& local, double tolerance) const {
  return local[0] >= -tolerance && local[1] >= -tolerance && local[0] + local[1] <= 1.0 + tolerance;
}

}  // namespace tessera
