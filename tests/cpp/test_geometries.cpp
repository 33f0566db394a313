// Tests of the geometry types (kernel/geometries): shape functions, integration
// rules, Jacobians and measures, normals and face orientation, the inverse
// mapping, and the lookup by .mdpa name.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/geometries/geometry_types.h"
#include "kernel/geometries/sphere.h"

namespace tessera {
namespace {

// Sums of a handful of O(1) terms: a few ulps of 1.
constexpr double kRoundoff = 1e-14;
// Quadratures, measures and gradients of O(1..10) cells: many roundings of O(1)
// values, well above their ~1e-15 accumulated error and far below any real defect.
constexpr double kExact = 1e-12;

// ---------------------------------------------------------------------------------
// Helpers

std::vector<Array3> ReferencePoints(const GeometryType& type) {
  return type.LocalCoordinatesOfNodes();
}

// A uniformly random point of the reference cell.
Array3 RandomLocal(const GeometryType& type, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
  Array3 p;
  switch (type.Family()) {
    case GeometryFamily::Line:
      p[0] = sym(rng);
      break;
    case GeometryFamily::Quadrilateral:
      p = {sym(rng), sym(rng), 0.0};
      break;
    case GeometryFamily::Hexahedron:
      p = {sym(rng), sym(rng), sym(rng)};
      break;
    case GeometryFamily::Triangle:
      do p = {unit(rng), unit(rng), 0.0};
      while (p[0] + p[1] > 1.0);
      break;
    case GeometryFamily::Tetrahedron:
      do p = {unit(rng), unit(rng), unit(rng)};
      while (p[0] + p[1] + p[2] > 1.0);
      break;
    default:
      break;  // points and spheres: the reference cell is the origin
  }
  return p;
}

// Rotation used to move planar cells into general position in 3D.
Array3 Rotate3D(const Array3& x) {
  Quaternion q{0.9, 0.3, -0.2, 0.25};
  const double n = q.Norm();
  q = {q.w / n, q.x / n, q.y / n, q.z / n};
  return q.Rotate(x);
}

// The geometry type of face `face` of `type`, as a boundary geometry in the same space.
const GeometryType& FaceType(const GeometryType& type, int face) {
  switch (type.FaceFamily(face)) {
    case GeometryFamily::Line:
      return GetGeometryType(type.WorkingSpaceDimension() == 2 ? "Line2D2" : "Line3D2");
    case GeometryFamily::Triangle:
      return GetGeometryType("Triangle3D3");
    case GeometryFamily::Quadrilateral:
      return GetGeometryType("Quadrilateral3D4");
    default:
      return GetGeometryType(type.WorkingSpaceDimension() == 2 ? "Point2D" : "Point3D");
  }
}

std::vector<Array3> Gather(const std::vector<Array3>& points, const std::vector<int>& nodes) {
  std::vector<Array3> out;
  for (int a : nodes) out.push_back(points[a]);
  return out;
}

// Distorted but valid cells of the full-dimensional types (no two faces parallel).
std::vector<Array3> DistortedCell(std::string_view name) {
  if (name == "Triangle2D3") return {{0.1, -0.2, 0.0}, {2.3, 0.4, 0.0}, {0.6, 1.7, 0.0}};
  if (name == "Quadrilateral2D4")
    return {{0.0, 0.0, 0.0}, {3.0, 0.2, 0.0}, {3.6, 2.8, 0.0}, {0.4, 2.1, 0.0}};
  if (name == "Tetrahedra3D4")
    return {{0.2, 0.1, -0.1}, {1.9, 0.3, 0.2}, {0.4, 2.2, 0.1}, {0.5, 0.6, 1.8}};
  // Hexahedra3D8: a skewed, tapered brick whose faces are not planar.
  return {{0.0, 0.0, 0.0}, {2.0, 0.1, 0.2},  {2.3, 1.9, -0.1}, {-0.1, 1.6, 0.1},
          {0.2, 0.1, 1.5}, {1.8, -0.1, 1.9}, {2.0, 2.1, 2.2},  {0.1, 1.8, 1.7}};
}

// Exact integral of xi^e[0] eta^e[1] zeta^e[2] over the reference cell.
double ExactMonomialIntegral(const GeometryType& type, const int e[3]) {
  auto factorial = [](int n) {
    double f = 1.0;
    for (int k = 2; k <= n; ++k) f *= k;
    return f;
  };
  auto symmetric = [](int p) { return p % 2 == 1 ? 0.0 : 2.0 / (p + 1); };  // over [-1, 1]
  switch (type.Family()) {
    case GeometryFamily::Line:
      return symmetric(e[0]);
    case GeometryFamily::Quadrilateral:
      return symmetric(e[0]) * symmetric(e[1]);
    case GeometryFamily::Hexahedron:
      return symmetric(e[0]) * symmetric(e[1]) * symmetric(e[2]);
    case GeometryFamily::Triangle:  // a! b! / (a + b + 2)!
      return factorial(e[0]) * factorial(e[1]) / factorial(e[0] + e[1] + 2);
    case GeometryFamily::Tetrahedron:  // a! b! c! / (a + b + c + 3)!
      return factorial(e[0]) * factorial(e[1]) * factorial(e[2]) /
             factorial(e[0] + e[1] + e[2] + 3);
    default:
      return 1.0;  // a point: evaluation
  }
}

double ReferenceMeasure(GeometryFamily family) {
  switch (family) {
    case GeometryFamily::Line:
      return 2.0;
    case GeometryFamily::Triangle:
      return 0.5;
    case GeometryFamily::Quadrilateral:
      return 4.0;
    case GeometryFamily::Tetrahedron:
      return 1.0 / 6.0;
    case GeometryFamily::Hexahedron:
      return 8.0;
    default:
      return 0.0;
  }
}

// ---------------------------------------------------------------------------------
// Properties every type must have, run over all names.

class EveryGeometry : public ::testing::TestWithParam<std::string> {
 protected:
  const GeometryType& type = GetGeometryType(GetParam());
};

INSTANTIATE_TEST_SUITE_P(Geometries, EveryGeometry, ::testing::ValuesIn(GeometryTypeNames()),
                         [](const auto& info) { return info.param; });

TEST_P(EveryGeometry, IdentityAndDimensions) {
  EXPECT_EQ(type.Name(), GetParam());
  EXPECT_EQ(&type, &GetGeometryType(GetParam()));  // one shared instance per name
  EXPECT_LE(type.LocalDimension(), type.WorkingSpaceDimension());
  EXPECT_EQ(static_cast<int>(type.LocalCoordinatesOfNodes().size()), type.PointsNumber());
  EXPECT_LE(type.PointsNumber(), GeometryType::kMaxPointsNumber);
  const int working = GetParam().find("2D") != std::string::npos ? 2 : 3;
  EXPECT_EQ(type.WorkingSpaceDimension(), working);
}

TEST_P(EveryGeometry, PartitionOfUnityAndZeroSumOfLocalGradients) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 100; ++trial) {
    const Array3 local = RandomLocal(type, rng);
    const Vector N = type.ShapeFunctionsValues(local);
    EXPECT_NEAR(N.sum(), 1.0, kRoundoff);
    Matrix dN;
    type.ShapeFunctionsLocalGradients(local, dN);
    ASSERT_EQ(dN.rows(), type.PointsNumber());
    ASSERT_EQ(dN.cols(), type.LocalDimension());
    for (int j = 0; j < type.LocalDimension(); ++j) EXPECT_NEAR(dN.col(j).sum(), 0.0, kRoundoff);
  }
}

TEST_P(EveryGeometry, KroneckerDeltaAtTheNodes) {
  const auto& nodes = type.LocalCoordinatesOfNodes();
  for (int b = 0; b < type.PointsNumber(); ++b) {
    const Vector N = type.ShapeFunctionsValues(nodes[b]);
    // Node coordinates are 0 and +-1: every factor is exactly 0, 1 or 2.
    for (int a = 0; a < type.PointsNumber(); ++a) EXPECT_EQ(N[a], a == b ? 1.0 : 0.0);
  }
}

TEST_P(EveryGeometry, LocalGradientsAreDerivativesOfTheValues) {
  std::mt19937 rng(7);
  const double h = 1e-6;
  for (int trial = 0; trial < 20; ++trial) {
    const Array3 local = RandomLocal(type, rng);
    Matrix dN;
    type.ShapeFunctionsLocalGradients(local, dN);
    for (int j = 0; j < type.LocalDimension(); ++j) {
      Array3 plus = local, minus = local;
      plus[j] += h, minus[j] -= h;
      const Vector fd =
          (type.ShapeFunctionsValues(plus) - type.ShapeFunctionsValues(minus)) / (2 * h);
      // Shape functions are linear in each variable, so central differences have
      // no truncation error; only roundoff 1e-16 / h remains.
      for (int a = 0; a < type.PointsNumber(); ++a) EXPECT_NEAR(dN(a, j), fd[a], 1e-9);
    }
  }
}

TEST_P(EveryGeometry, IntegrationRulesAreExactForTheirClaimedDegree) {
  const int L = type.LocalDimension();
  for (int order = 1; order <= type.MaxIntegrationOrder(); ++order) {
    const auto& rule = type.IntegrationPoints(order);
    ASSERT_FALSE(rule.empty());
    for (const IntegrationPoint& ip : rule) {
      EXPECT_GT(ip.weight, 0.0) << "order " << order;
      EXPECT_TRUE(type.IsInsideLocalSpace(ip.local, 0.0)) << "order " << order << " " << ip.local;
    }
    const int degree = type.ExactPolynomialDegree(order);
    EXPECT_GE(degree, order == 2 ? 2 : 2 * order - 1);
    // Every monomial xi^a eta^b zeta^c of total degree <= degree in the L local variables.
    int e[3] = {0, 0, 0};
    for (e[0] = 0; e[0] <= (L > 0 ? degree : 0); ++e[0]) {
      for (e[1] = 0; e[1] <= (L > 1 ? degree - e[0] : 0); ++e[1]) {
        for (e[2] = 0; e[2] <= (L > 2 ? degree - e[0] - e[1] : 0); ++e[2]) {
          double sum = 0.0;
          for (const IntegrationPoint& ip : rule)
            sum += ip.weight * std::pow(ip.local[0], e[0]) * std::pow(ip.local[1], e[1]) *
                   std::pow(ip.local[2], e[2]);
          EXPECT_NEAR(sum, ExactMonomialIntegral(type, e), kExact)
              << type.Name() << " order " << order << " monomial " << e[0] << e[1] << e[2];
        }
      }
    }
  }
}

TEST_P(EveryGeometry, InvalidIntegrationOrderThrows) {
  EXPECT_THROW(type.IntegrationPoints(0), Error);
  EXPECT_THROW(type.IntegrationPoints(type.MaxIntegrationOrder() + 1), Error);
  EXPECT_NO_THROW(type.IntegrationPoints(type.DefaultIntegrationOrder()));
}

TEST_P(EveryGeometry, DomainSizeOfReferenceAndOfScaledMovedCell) {
  auto points = ReferencePoints(type);
  if (type.Family() == GeometryFamily::Sphere) {
    EXPECT_THROW(type.DomainSize(points), Error);  // the radius is not geometry data
    return;
  }
  const double reference = ReferenceMeasure(type.Family());
  EXPECT_NEAR(type.DomainSize(points), reference, kRoundoff);
  // Scale by s, move into general position: the measure scales by s^L.
  const double s = 2.5;
  for (Array3& p : points) {
    p = s * p;
    if (type.WorkingSpaceDimension() == 3) p = Rotate3D(p);
    p += Array3{1.0, -2.0, type.WorkingSpaceDimension() == 3 ? 0.5 : 0.0};
  }
  EXPECT_NEAR(type.DomainSize(points), reference * std::pow(s, type.LocalDimension()), kExact);
}

TEST_P(EveryGeometry, CenterIsTheImageOfTheLocalCenter) {
  std::vector<Array3> points;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> jitter(-0.2, 0.2);
  for (const Array3& p : type.LocalCoordinatesOfNodes())
    points.push_back(p + Array3{jitter(rng), jitter(rng), jitter(rng)});
  const Array3 c = type.Center(points), x = type.GlobalCoordinates(points, type.LocalCenter());
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(c[i], x[i], kRoundoff);
}

TEST_P(EveryGeometry, TopologyIsConsistent) {
  for (const auto& edge : type.EdgesNodes()) {
    ASSERT_EQ(edge.size(), 2u);
    EXPECT_NE(edge[0], edge[1]);
    for (int a : edge) EXPECT_TRUE(a >= 0 && a < type.PointsNumber());
  }
  std::set<std::set<int>> unique_faces;
  for (int f = 0; f < type.FacesNumber(); ++f) {
    const auto& face = type.FacesNodes()[f];
    EXPECT_EQ(static_cast<int>(face.size()), FaceType(type, f).PointsNumber());
    unique_faces.insert(std::set<int>(face.begin(), face.end()));
  }
  EXPECT_EQ(static_cast<int>(unique_faces.size()), type.FacesNumber());
  EXPECT_THROW(type.FaceFamily(type.FacesNumber()), Error);
}

TEST_P(EveryGeometry, WrongNumberOfPointsThrowsNamingTheType) {
  std::vector<Array3> points(type.PointsNumber() + 1);
  try {
    type.Center(points);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(type.Name()), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------
// Counts, Gauss-Legendre values

TEST(Geometries, EdgeAndFaceCounts) {
  struct Expected {
    const char* name;
    int points, edges, faces;
  };
  for (const auto& [name, points, edges, faces] :
       {Expected{"Point3D", 1, 0, 0}, Expected{"Line2D2", 2, 1, 2},
        Expected{"Triangle3D3", 3, 3, 3}, Expected{"Quadrilateral2D4", 4, 4, 4},
        Expected{"Tetrahedra3D4", 4, 6, 4}, Expected{"Hexahedra3D8", 8, 12, 6},
        Expected{"Sphere3D1", 1, 0, 0}}) {
    const GeometryType& type = GetGeometryType(name);
    EXPECT_EQ(type.PointsNumber(), points) << name;
    EXPECT_EQ(type.EdgesNumber(), edges) << name;
    EXPECT_EQ(type.FacesNumber(), faces) << name;
  }
}

TEST(Geometries, GaussLegendreMatchesClosedForms) {
  const auto two = GaussLegendre(2), three = GaussLegendre(3);
  // Closed forms +-1/sqrt(3) and +-sqrt(3/5): agreement to a couple of ulps.
  EXPECT_NEAR(two[0].first, -1.0 / std::sqrt(3.0), kRoundoff);
  EXPECT_NEAR(two[1].second, 1.0, kRoundoff);
  EXPECT_NEAR(three[2].first, std::sqrt(0.6), kRoundoff);
  EXPECT_EQ(three[1].first, 0.0);  // set exactly so odd monomials vanish
  EXPECT_NEAR(three[0].second, 5.0 / 9.0, kRoundoff);
  EXPECT_NEAR(three[1].second, 8.0 / 9.0, kRoundoff);
}

// ---------------------------------------------------------------------------------
// Measures of distorted cells against hand-computed values

TEST(Geometries, DomainSizeOfDistortedCells) {
  auto size = [](const char* name, std::vector<Array3> points) {
    return GetGeometryType(name).DomainSize(points);
  };
  // Hypotenuses of 3-4-5 right triangles.
  EXPECT_NEAR(size("Line2D2", {{0, 0, 0}, {3, 4, 0}}), 5.0, kExact);
  EXPECT_NEAR(size("Line3D2", {{1, 2, 3}, {4, 6, 3}}), 5.0, kExact);
  // Base 4, height 3; signed: clockwise ordering gives the negative area.
  EXPECT_NEAR(size("Triangle2D3", {{0, 0, 0}, {4, 0, 0}, {1, 3, 0}}), 6.0, kExact);
  EXPECT_NEAR(size("Triangle2D3", {{0, 0, 0}, {1, 3, 0}, {4, 0, 0}}), -6.0, kExact);
  // Equilateral triangle of side sqrt(2): sqrt(3)/4 * 2.
  EXPECT_NEAR(size("Triangle3D3", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}), std::sqrt(3.0) / 2.0, kExact);
  // General quadrilateral, shoelace formula: (0 + 9 + 5 + 0) / 2.
  const std::vector<Array3> quad{{0, 0, 0}, {3, 0, 0}, {4, 3, 0}, {1, 2, 0}};
  EXPECT_NEAR(size("Quadrilateral2D4", quad), 7.0, kExact);
  std::vector<Array3> quad3d;
  for (const Array3& p : quad) quad3d.push_back(Rotate3D(p));
  EXPECT_NEAR(size("Quadrilateral3D4", quad3d), 7.0, kExact);
  // Trapezoid: (4 + 2) / 2 * 2.
  EXPECT_NEAR(size("Quadrilateral2D4", {{0, 0, 0}, {4, 0, 0}, {3, 2, 0}, {1, 2, 0}}), 6.0, kExact);
  // Corner tetrahedron 2 x 3 x 4 / 6.
  EXPECT_NEAR(size("Tetrahedra3D4", {{0, 0, 0}, {2, 0, 0}, {0, 3, 0}, {0, 0, 4}}), 4.0, kExact);
  // Box 2 x 3 x 4.
  EXPECT_NEAR(
      size(
          "Hexahedra3D8",
          {{0, 0, 0}, {2, 0, 0}, {2, 3, 0}, {0, 3, 0}, {0, 0, 4}, {2, 0, 4}, {2, 3, 4}, {0, 3, 4}}),
      24.0, kExact);
  // Unit square base, top height h(x, y) = 1 + x y (node 6 raised to 2):
  // the volume is the integral of h over the square, 1 + 1/4.
  EXPECT_NEAR(
      size(
          "Hexahedra3D8",
          {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 2}, {0, 1, 1}}),
      1.25, kExact);
  // Square frustum, base side 2, top side 1, height 1: h/3 (A1 + A2 + sqrt(A1 A2)) = 7/3.
  EXPECT_NEAR(size("Hexahedra3D8", {{-1, -1, 0},
                                    {1, -1, 0},
                                    {1, 1, 0},
                                    {-1, 1, 0},
                                    {-0.5, -0.5, 1},
                                    {0.5, -0.5, 1},
                                    {0.5, 0.5, 1},
                                    {-0.5, 0.5, 1}}),
              7.0 / 3.0, kExact);
  // Points have no measure.
  EXPECT_EQ(size("Point3D", {{1, 2, 3}}), 0.0);
}

TEST(Geometries, JacobianShapesAndSurfaceDeterminant) {
  Matrix J;
  const std::vector<Array3> tri{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const GeometryType& t3 = GetGeometryType("Triangle3D3");
  t3.Jacobian(tri, {0.2, 0.3, 0.0}, J);
  EXPECT_EQ(J.rows(), 3);
  EXPECT_EQ(J.cols(), 2);
  EXPECT_NEAR(t3.DeterminantOfJacobian(tri, {}), std::sqrt(3.0), kExact);  // twice the area
  const GeometryType& l2 = GetGeometryType("Line2D2");
  const std::vector<Array3> line{{0, 0, 0}, {3, 4, 0}};
  l2.Jacobian(line, {}, J);
  EXPECT_EQ(J.rows(), 2);
  EXPECT_EQ(J.cols(), 1);
  EXPECT_NEAR(l2.DeterminantOfJacobian(line, {}), 2.5, kExact);  // half the length
}

// ---------------------------------------------------------------------------------
// Global gradients

class FullDimensional : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Geometries, FullDimensional,
                         ::testing::Values("Triangle2D3", "Quadrilateral2D4", "Tetrahedra3D4",
                                           "Hexahedra3D8"),
                         [](const auto& info) { return info.param; });

TEST_P(FullDimensional, GlobalGradientsReproduceALinearField) {
  const GeometryType& type = GetGeometryType(GetParam());
  const auto points = DistortedCell(GetParam());
  const int W = type.WorkingSpaceDimension();
  const double a = 0.7;
  const Array3 b{1.3, -2.1, W == 3 ? 0.6 : 0.0};
  std::vector<double> u;
  for (const Array3& x : points) u.push_back(a + Dot(b, x));
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    const Array3 local = RandomLocal(type, rng);
    Matrix dN_dX;
    double detJ = 0.0;
    type.ShapeFunctionsGradients(points, local, dN_dX, detJ);
    ASSERT_EQ(dN_dX.rows(), type.PointsNumber());
    ASSERT_EQ(dN_dX.cols(), W);
    EXPECT_GT(detJ, 0.0);
    EXPECT_NEAR(detJ, type.DeterminantOfJacobian(points, local), kExact);
    for (int i = 0; i < W; ++i) {
      double grad = 0.0;
      for (int n = 0; n < type.PointsNumber(); ++n) grad += dN_dX(n, i) * u[n];
      EXPECT_NEAR(grad, b[i], kExact);
    }
    // And the interpolated value is the field at the mapped point.
    const Vector N = type.ShapeFunctionsValues(local);
    double value = 0.0;
    for (int n = 0; n < type.PointsNumber(); ++n) value += N[n] * u[n];
    EXPECT_NEAR(value, a + Dot(b, type.GlobalCoordinates(points, local)), kExact);
  }
}

TEST(Geometries, GlobalGradientsNeedACellThatFillsItsSpace) {
  Matrix dN_dX;
  double detJ;
  EXPECT_THROW(GetGeometryType("Line2D2").ShapeFunctionsGradients(
                   std::vector<Array3>{{0, 0, 0}, {1, 0, 0}}, {}, dN_dX, detJ),
               Error);
  EXPECT_THROW(GetGeometryType("Triangle3D3")
                   .ShapeFunctionsGradients(std::vector<Array3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
                                            {}, dN_dX, detJ),
               Error);
  // A collapsed triangle: degenerate, det J = 0.
  EXPECT_THROW(GetGeometryType("Triangle2D3")
                   .ShapeFunctionsGradients(std::vector<Array3>{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}},
                                            {}, dN_dX, detJ),
               Error);
}

// ---------------------------------------------------------------------------------
// Normals and face orientation

TEST(Geometries, LineNormalIsTheTangentRotatedClockwise) {
  const GeometryType& line = GetGeometryType("Line2D2");
  const std::vector<Array3> points{{1, 1, 0}, {3, 1, 0}};
  const Array3 n = line.AreaNormal(points, {});
  // Tangent dx/dxi = (1, 0) (half the length); rotated by -90 degrees: (0, -1).
  EXPECT_NEAR(n[0], 0.0, kRoundoff);
  EXPECT_NEAR(n[1], -1.0, kRoundoff);
  EXPECT_NEAR(n[2], 0.0, kRoundoff);
  const Array3 u = line.UnitNormal(std::vector<Array3>{{0, 0, 0}, {0, 5, 0}}, {});
  EXPECT_NEAR(u[0], 1.0, kRoundoff);  // going up, the right-hand side is +x
  EXPECT_NEAR(u[1], 0.0, kRoundoff);
}

TEST(Geometries, SurfaceNormalIsTheCrossProductOfTheTangents) {
  const GeometryType& tri = GetGeometryType("Triangle3D3");
  const std::vector<Array3> points{{0, 0, 0}, {2, 0, 0}, {0, 3, 0}};
  const Array3 n = tri.AreaNormal(points, {0.2, 0.2, 0.0});
  EXPECT_NEAR(n[2], 6.0, kExact);  // |n| = twice the area, along +z (counter-clockwise)
  const Array3 u = GetGeometryType("Quadrilateral3D4")
                       .UnitNormal(std::vector<Array3>{{0, 0, 0}, {0, 2, 0}, {0, 2, 1}, {0, 0, 1}},
                                   {0.3, -0.4, 0.0});
  EXPECT_NEAR(u[0], 1.0, kRoundoff);  // y cross z = +x
  EXPECT_THROW(GetGeometryType("Tetrahedra3D4").AreaNormal(DistortedCell("Tetrahedra3D4"), {}),
               Error);
  EXPECT_THROW(GetGeometryType("Point3D").AreaNormal(std::vector<Array3>{{}}, {}), Error);
}

TEST_P(FullDimensional, FaceNormalsPointOutwardAndCloseTheSurface) {
  const GeometryType& type = GetGeometryType(GetParam());
  const auto points = DistortedCell(GetParam());
  const Array3 cell_center = type.Center(points);
  Array3 total;
  for (int f = 0; f < type.FacesNumber(); ++f) {
    const GeometryType& face_type = FaceType(type, f);
    const auto face = Gather(points, type.FacesNodes()[f]);
    const Array3 face_center = face_type.Center(face);
    // At the face centre and at every Gauss point the normal points out of the cell.
    EXPECT_GT(Dot(face_type.AreaNormal(face, face_type.LocalCenter()), face_center - cell_center),
              0.0)
        << type.Name() << " face " << f;
    for (const IntegrationPoint& ip : face_type.IntegrationPoints(2)) {
      const Array3 n = face_type.AreaNormal(face, ip.local);
      EXPECT_GT(Dot(n, face_center - cell_center), 0.0) << type.Name() << " face " << f;
      total += ip.weight * n;
    }
  }
  // The integral of n dA over a closed surface vanishes, and the rule computes it
  // exactly: the area normal has degree <= 1 per local variable.
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(total[i], 0.0, kExact) << type.Name();
}

// ---------------------------------------------------------------------------------
// Inverse mapping

// global = x(local) must be found inside (or outside) with local recovered.
void ExpectInverse(const char* name, const std::vector<Array3>& points, const Array3& local,
                   bool inside) {
  const GeometryType& type = GetGeometryType(name);
  const Array3 global = type.GlobalCoordinates(points, local);
  Array3 found;
  EXPECT_EQ(type.IsInside(points, global, found), inside) << name << " at " << local;
  // Newton converges to roundoff; the inverse map amplifies it by cond(J) ~ 10.
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(found[i], local[i], kExact) << name << " at " << local;
}

TEST(Geometries, IsInsideRecoversLocalCoordinatesOfSolidsAndPlaneCells) {
  ExpectInverse("Triangle2D3", DistortedCell("Triangle2D3"), {0.1, 0.2, 0.0}, true);
  ExpectInverse("Tetrahedra3D4", DistortedCell("Tetrahedra3D4"), {0.1, 0.2, 0.3}, true);
  ExpectInverse("Triangle2D3", DistortedCell("Triangle2D3"), {0.7, 0.5, 0.0}, false);
  ExpectInverse("Triangle2D3", DistortedCell("Triangle2D3"), {-0.1, 0.5, 0.0}, false);
  ExpectInverse("Tetrahedra3D4", DistortedCell("Tetrahedra3D4"), {0.5, 0.4, 0.3}, false);
  ExpectInverse("Quadrilateral2D4", DistortedCell("Quadrilateral2D4"), {0.3, -0.5, 0.0}, true);
  ExpectInverse("Quadrilateral2D4", DistortedCell("Quadrilateral2D4"), {1.2, 0.1, 0.0}, false);
  ExpectInverse("Hexahedra3D8", DistortedCell("Hexahedra3D8"), {0.3, -0.6, 0.9}, true);
  ExpectInverse("Hexahedra3D8", DistortedCell("Hexahedra3D8"), {0.0, 0.2, 1.3}, false);
  ExpectInverse("Hexahedra3D8", DistortedCell("Hexahedra3D8"), {-1.0, 1.0, -1.0}, true);  // a node
}

TEST(Geometries, IsInsideToleranceAtTheBoundary) {
  const GeometryType& tri = GetGeometryType("Triangle2D3");
  const auto points = DistortedCell("Triangle2D3");
  Array3 local;
  // Just outside the edge eta = 0 by 1e-12 in local terms: inside with the default
  // tolerance 1e-10, outside with tolerance 1e-14 (still above the ~1e-16 roundoff).
  const Array3 global = tri.GlobalCoordinates(points, {0.5, -1e-12, 0.0});
  EXPECT_TRUE(tri.IsInside(points, global, local));
  EXPECT_FALSE(tri.IsInside(points, global, local, 1e-14));
}

TEST(Geometries, IsInsideProjectsOntoLinesAndSurfaces) {
  const GeometryType& tri = GetGeometryType("Triangle3D3");
  std::vector<Array3> points;
  for (const Array3& p : DistortedCell("Triangle2D3")) points.push_back(Rotate3D(p));
  const Array3 on = tri.GlobalCoordinates(points, {0.25, 0.35, 0.0});
  const Array3 normal = tri.UnitNormal(points, {});
  Array3 local;
  EXPECT_TRUE(tri.IsInside(points, on, local));
  EXPECT_NEAR(local[0], 0.25, kExact);  // roundoff of the rotated coordinates, amplified by cond(J)
  EXPECT_NEAR(local[1], 0.35, kExact);
  // Off the plane by 0.01: the projection is the same local point, but it is not inside.
  EXPECT_FALSE(tri.IsInside(points, on + 0.01 * normal, local));
  EXPECT_NEAR(local[0], 0.25, kExact);
  EXPECT_NEAR(local[1], 0.35, kExact);

  const GeometryType& line = GetGeometryType("Line2D2");
  const std::vector<Array3> segment{{0, 0, 0}, {4, 2, 0}};
  EXPECT_TRUE(line.IsInside(segment, {2, 1, 0}, local));
  EXPECT_NEAR(local[0], 0.0, kExact);
  EXPECT_FALSE(line.IsInside(segment, {6, 3, 0}, local));  // beyond node 1, on the line
  EXPECT_NEAR(local[0], 2.0, kExact);
  EXPECT_FALSE(line.IsInside(segment, {2, 1.5, 0}, local));  // beside the segment
  EXPECT_NEAR(local[0], 0.1, kExact);  // projection: (0, 0.5) . (2, 1) / |(2, 1)|^2

  const GeometryType& point = GetGeometryType("Point3D");
  EXPECT_TRUE(point.IsInside(std::vector<Array3>{{1, 2, 3}}, {1, 2, 3}, local));
  EXPECT_FALSE(point.IsInside(std::vector<Array3>{{1, 2, 3}}, {1, 2, 3.001}, local));
}

// ---------------------------------------------------------------------------------
// Lookup by name, sphere helpers

TEST(Geometries, LookupByName) {
  const auto names = GeometryTypeNames();
  EXPECT_EQ(names.size(), 11u);
  for (const char* name :
       {"Point2D", "Point3D", "Line2D2", "Line3D2", "Triangle2D3", "Triangle3D3",
        "Quadrilateral2D4", "Quadrilateral3D4", "Tetrahedra3D4", "Hexahedra3D8", "Sphere3D1"}) {
    ASSERT_NE(FindGeometryType(name), nullptr) << name;
    EXPECT_EQ(FindGeometryType(name)->Name(), name);
  }
  EXPECT_EQ(GetGeometryType("Sphere3D1").Family(), GeometryFamily::Sphere);
  EXPECT_EQ(GetGeometryType("Hexahedra3D8").FaceFamily(0), GeometryFamily::Quadrilateral);
  EXPECT_EQ(FindGeometryType("Prism3D6"), nullptr);
  try {
    GetGeometryType("Prism3D6");
    FAIL() << "no exception";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("Prism3D6"), std::string::npos) << message;
    EXPECT_NE(message.find("Hexahedra3D8"), std::string::npos) << message;  // lists the known ones
  }
}

TEST(Geometries, SphereMeasures) {
  const double r = 2.0;
  // Closed forms evaluated in a different order: a few ulps of O(10) values.
  EXPECT_NEAR(Sphere3D1::SphereVolume(r), 32.0 * std::numbers::pi / 3.0, kExact);
  EXPECT_NEAR(Sphere3D1::SphereSurfaceArea(r), 16.0 * std::numbers::pi, kExact);
  EXPECT_NEAR(Sphere3D1::SphereCrossSectionArea(r), 4.0 * std::numbers::pi, kExact);
  EXPECT_NEAR(Sphere3D1::SphereRadiusFromVolume(Sphere3D1::SphereVolume(r)), r, kExact);
  EXPECT_NEAR(Sphere3D1::SphereMomentOfInertia(5.0, r), 8.0, kExact);
  const GeometryType& sphere = GetGeometryType("Sphere3D1");
  EXPECT_EQ(sphere.LocalDimension(), 0);
  EXPECT_EQ(sphere.PointsNumber(), 1);
}

}  // namespace
}  // namespace tessera
