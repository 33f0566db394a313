// Tetrahedron4: linear shape functions on the unit tetrahedron and its symmetric
// and collapsed Gauss integration rules.
#include "kernel/geometries/tetrahedron4.h"

#include <array>
#include <cmath>

namespace tessera {

namespace {

// Collapsed (Duffy) rule: m-point Gauss-Legendre in u, v, w on [0, 1] mapped by
// xi = u, eta = (1 - u) v, zeta = (1 - u)(1 - v) w, with Jacobian
// (1 - u)^2 (1 - v). A monomial of degree p becomes degree p + 2 in u, at most
// p + 1 in v and p in w, so the rule is exact for p <= 2m - 3.
std::vector<IntegrationPoint> CollapsedRule(int m) {
  std::vector<IntegrationPoint> rule;
  const auto gauss = GaussLegendre(m);
  for (const auto& [xu, wu] : gauss) {
    const double u = 0.5 * (1.0 + xu);
    for (const auto& [xv, wv] : gauss) {
      const double v = 0.5 * (1.0 + xv);
      for (const auto& [xw, ww] : gauss) {
        const double w = 0.5 * (1.0 + xw);
        rule.push_back({{u, (1.0 - u) * v, (1.0 - u) * (1.0 - v) * w},
                        0.125 * wu * wv * ww * (1.0 - u) * (1.0 - u) * (1.0 - v)});
      }
    }
  }
  return rule;
}

std::array<std::vector<IntegrationPoint>, GeometryType::kMaxIntegrationOrder + 1> BuildRules() {
  std::array<std::vector<IntegrationPoint>, GeometryType::kMaxIntegrationOrder + 1> rules;
  // Weights below are for the reference tetrahedron of volume 1/6.
  AddBarycentricOrbit(rules[1], {0.25, 0.25, 0.25, 0.25}, 1.0 / 6.0);
  // Orbit (a, a, a, 1 - 3a) with a = (5 - sqrt 5) / 20: the root of the degree-2
  // moment condition for four equal weights.
  const double a = (5.0 - std::sqrt(5.0)) / 20.0;
  AddBarycentricOrbit(rules[2], {a, a, a, 1.0 - 3.0 * a}, 1.0 / 24.0);
  // Two orbits (a, a, a, 1 - 3a) and one (c, c, 1/2 - c, 1/2 - c): the six
  // unknowns solve the six moment conditions of the symmetric polynomials up to
  // degree 5 (1, e2, e3, e2^2, e4, e2 e3 of the barycentric coordinates). The
  // values were obtained by solving those equations to 40 digits; this is the
  // well-known 14-point degree-5 rule, with positive weights and interior points.
  const double a1 = 0.09273525031089122640232391, a2 = 0.3108859192633006097973457;
  const double c = 0.4544962958743503505081195;
  AddBarycentricOrbit(rules[3], {a1, a1, a1, 1.0 - 3.0 * a1}, 0.01224884051939365825728503);
  AddBarycentricOrbit(rules[3], {a2, a2, a2, 1.0 - 3.0 * a2}, 0.01878132095300264179986428);
  AddBarycentricOrbit(rules[3], {c, c, 0.5 - c, 0.5 - c}, 0.007091003462846911073011571);
  for (int n = 4; n <= GeometryType::kMaxIntegrationOrder; ++n) rules[n] = CollapsedRule(n + 1);
  return rules;
}

}  // namespace

void Tetrahedron4::ShapeFunctionsValues(const Array3& local, double* N) const {
  N[0] = 1.0 - local[0] - local[1] - local[2];
  N[1] = local[0];
  N[2] = local[1];
  N[3] = local[2];
}

void Tetrahedron4::LocalGradients(const Array3& /*local*/, double* dN_dxi) const {
  static constexpr double dN[12] = {-1.0, -1.0, -1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  for (int i = 0; i < 12; ++i) dN_dxi[i] = dN[i];
}

const std::vector<Array3>& Tetrahedron4::LocalCoordinatesOfNodes() const {
  static const std::vector<Array3> nodes{
      {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
  return nodes;
}

const std::vector<IntegrationPoint>& Tetrahedron4::IntegrationPoints(int order) const {
  CheckOrder(order);
  static const auto rules = BuildRules();
  return rules[order];
}

int Tetrahedron4::ExactPolynomialDegree(int order) const {
  CheckOrder(order);
  return order == 2 ? 2 : 2 * order - 1;
}

const std::vector<std::vector<int>>& Tetrahedron4::EdgesNodes() const {
  static const std::vector<std::vector<int>> edges{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  return edges;
}

const std::vector<std::vector<int>>& Tetrahedron4::FacesNodes() const {
  // (x1 - x0) x (x2 - x0) of each face points away from the opposite node.
  static const std::vector<std::vector<int>> faces{{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  return faces;
}

bool Tetrahedron4::IsInsideLocalSpace(const Array3& local, double tolerance) const {
  return local[0] >= -tolerance && local[1] >= -tolerance && local[2] >= -tolerance &&
         local[0] + local[1] + local[2] <= 1.0 + tolerance;
}

}  // namespace tessera
