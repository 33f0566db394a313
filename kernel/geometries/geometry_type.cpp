// GeometryType: the geometric algorithms shared by every family, written once in
// terms of the shape functions, plus the Gauss-Legendre rule builder.
#include "kernel/geometries/geometry_type.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "kernel/core/error.h"

namespace tessera {

namespace {

double Det2(double a, double b, double c, double d) { return a * d - b * c; }

double Det3(const double A[3][3]) {
  return A[0][0] * Det2(A[1][1], A[1][2], A[2][1], A[2][2]) -
         A[0][1] * Det2(A[1][0], A[1][2], A[2][0], A[2][2]) +
         A[0][2] * Det2(A[1][0], A[1][1], A[2][0], A[2][1]);
}

// Determinant of the top-left n x n block (n <= 3; 1 for n == 0).
double DetN(int n, const double A[3][3]) {
  switch (n) {
    case 0:
      return 1.0;
    case 1:
      return A[0][0];
    case 2:
      return Det2(A[0][0], A[0][1], A[1][0], A[1][1]);
    default:
      return Det3(A);
  }
}

// Inverse of the top-left n x n block by cofactors; the caller checks det != 0.
void InverseN(int n, const double A[3][3], double det, double inv[3][3]) {
  if (n == 1) {
    inv[0][0] = 1.0 / det;
  } else if (n == 2) {
    inv[0][0] = A[1][1] / det, inv[0][1] = -A[0][1] / det;
    inv[1][0] = -A[1][0] / det, inv[1][1] = A[0][0] / det;
  } else if (n == 3) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        // inv(i, j) = cofactor(j, i) / det, with cyclic indices giving the sign.
        const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
        inv[i][j] = Det2(A[r0][c0], A[r0][c1], A[r1][c0], A[r1][c1]) / det;
      }
    }
  }
}

// Whether the n x n block is numerically singular: |det| small against the
// product of its row norms (Hadamard's bound), so the test is scale-free.
bool IsSingular(int n, const double A[3][3], double det) {
  double bound = 1.0;
  for (int i = 0; i < n; ++i) {
    double row = 0.0;
    for (int j = 0; j < n; ++j) row += A[i][j] * A[i][j];
    bound *= std::sqrt(row);
  }
  return !(std::abs(det) > 1e-13 * bound);  // also catches NaN and an all-zero block
}

}  // namespace

std::string_view FamilyName(GeometryFamily family) {
  switch (family) {
    case GeometryFamily::Point:
      return "Point";
    case GeometryFamily::Line:
      return "Line";
    case GeometryFamily::Triangle:
      return "Triangle";
    case GeometryFamily::Quadrilateral:
      return "Quadrilateral";
    case GeometryFamily::Tetrahedron:
      return "Tetrahedron";
    case GeometryFamily::Hexahedron:
      return "Hexahedron";
    case GeometryFamily::Sphere:
      return "Sphere";
  }
  return "Unknown";
}

Vector GeometryType::ShapeFunctionsValues(const Array3& local) const {
  Vector N(PointsNumber());
  ShapeFunctionsValues(local, N.data());
  return N;
}

void GeometryType::ShapeFunctionsLocalGradients(const Array3& local, Matrix& dN_dxi) const {
  dN_dxi.resize(PointsNumber(), LocalDimension());
  // Row-major storage makes the matrix's buffer exactly the layout LocalGradients writes.
  if (dN_dxi.size() > 0) LocalGradients(local, dN_dxi.data());
}

Array3 GeometryType::LocalCenter() const {
  Array3 c;
  const auto& nodes = LocalCoordinatesOfNodes();
  for (const Array3& p : nodes) c += p;
  return c / static_cast<double>(nodes.size());
}

GeometryFamily GeometryType::FaceFamily(int face) const {
  TESSERA_CHECK(face >= 0 && face < FacesNumber(), Name(), " has ", FacesNumber(),
                " faces, there is no face ", face);
  switch (Family()) {
    case GeometryFamily::Line:
      return GeometryFamily::Point;
    case GeometryFamily::Triangle:
    case GeometryFamily::Quadrilateral:
      return GeometryFamily::Line;
    case GeometryFamily::Tetrahedron:
      return GeometryFamily::Triangle;
    case GeometryFamily::Hexahedron:
      return GeometryFamily::Quadrilateral;
    default:
      TESSERA_ERROR(Name(), " has no faces");
  }
}

void GeometryType::CheckPoints(std::span<const Array3> points) const {
  TESSERA_CHECK(static_cast<int>(points.size()) == PointsNumber(), Name(), " needs ",
                PointsNumber(), " points, got ", points.size());
}

void GeometryType::CheckOrder(int order) const {
  TESSERA_CHECK(order >= 1 && order <= MaxIntegrationOrder(), Name(),
                ": integration order must be between 1 and ", MaxIntegrationOrder(), ", got ",
                order);
}

Array3 GeometryType::GlobalCoordinates(std::span<const Array3> points, const Array3& local) const {
  CheckPoints(points);
  double N[kMaxPointsNumber];
  ShapeFunctionsValues(local, N);
  Array3 x;
  for (int a = 0; a < PointsNumber(); ++a) x += N[a] * points[a];
  return x;
}

void GeometryType::FixedJacobian(std::span<const Array3> points, const Array3& local,
                                 double J[3][3]) const {
  CheckPoints(points);
  const int n = PointsNumber(), L = LocalDimension(), W = WorkingSpaceDimension();
  double dN[kMaxPointsNumber * 3];
  if (L > 0) LocalGradients(local, dN);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      if (i < W && j < L)
        for (int a = 0; a < n; ++a) s += points[a][i] * dN[a * L + j];
      J[i][j] = s;
    }
  }
}

void GeometryType::Jacobian(std::span<const Array3> points, const Array3& local, Matrix& J) const {
  double Jf[3][3];
  FixedJacobian(points, local, Jf);
  J.resize(WorkingSpaceDimension(), LocalDimension());
  for (int i = 0; i < J.rows(); ++i)
    for (int j = 0; j < J.cols(); ++j) J(i, j) = Jf[i][j];
}

double GeometryType::DeterminantOfJacobian(std::span<const Array3> points,
                                           const Array3& local) const {
  double J[3][3];
  FixedJacobian(points, local, J);
  const int L = LocalDimension(), W = WorkingSpaceDimension();
  if (L == W) return DetN(L, J);
  if (L == 0) return 1.0;  // a point: counting measure
  const Array3 t0{J[0][0], J[1][0], J[2][0]};
  if (L == 1) return Norm(t0);
  // L == 2, W == 3: sqrt(det(J^T J)) = |t0 x t1|, computed as the cross product
  // because it loses no accuracy to the squaring.
  const Array3 t1{J[0][1], J[1][1], J[2][1]};
  return Norm(Cross(t0, t1));
}

double GeometryType::InverseJacobian(std::span<const Array3> points, const Array3& local,
                                     double J_inv[3][3]) const {
  const int L = LocalDimension(), W = WorkingSpaceDimension();
  TESSERA_CHECK(L == W, Name(),
                ": global shape function gradients need a cell that fills its working space "
                "(local dimension ",
                L, ", working space dimension ", W, ")");
  double J[3][3];
  FixedJacobian(points, local, J);
  const double detJ = DetN(L, J);
  TESSERA_CHECK(!IsSingular(L, J, detJ), Name(), ": degenerate cell, det J = ", detJ,
                " at local point ", local);
  InverseN(L, J, detJ, J_inv);
  return detJ;
}

void GeometryType::ShapeFunctionsGradients(std::span<const Array3> points, const Array3& local,
                                           Matrix& dN_dX, double& detJ) const {
  const int L = LocalDimension(), W = WorkingSpaceDimension(), n = PointsNumber();
  double Jinv[3][3], dN[kMaxPointsNumber * 3];
  detJ = InverseJacobian(points, local, Jinv);
  LocalGradients(local, dN);
  dN_dX.resize(n, W);
  // dN/dx_i = sum_j dN/dxi_j dxi_j/dx_i, with dxi/dx = J^-1.
  GlobalGradients(
      n, W, [&](int a, int j) { return dN[a * L + j]; }, [&](int j, int i) { return Jinv[j][i]; },
      dN_dX);
}

double GeometryType::DomainSize(std::span<const Array3> points) const {
  // Each family's default rule integrates its det J exactly where det J is a
  // polynomial (see DefaultIntegrationOrder in the family files).
  double size = 0.0;
  for (const IntegrationPoint& ip : IntegrationPoints(DefaultIntegrationOrder()))
    size += ip.weight * DeterminantOfJacobian(points, ip.local);
  return size;
}

Array3 GeometryType::Center(std::span<const Array3> points) const {
  CheckPoints(points);
  Array3 c;
  for (const Array3& p : points) c += p;
  return c / static_cast<double>(points.size());
}

Array3 GeometryType::AreaNormal(std::span<const Array3> points, const Array3& local) const {
  const GeometryFamily family = Family();
  TESSERA_CHECK(family == GeometryFamily::Line || family == GeometryFamily::Triangle ||
                    family == GeometryFamily::Quadrilateral,
                Name(), ": normals are defined for lines, triangles and quadrilaterals only");
  CheckPoints(points);
  // Tangents from all three coordinates, so a 2D cell gets its (0, 0, det J) normal.
  const int L = LocalDimension();
  double dN[kMaxPointsNumber * 3];
  LocalGradients(local, dN);
  Array3 t[2];
  for (int a = 0; a < PointsNumber(); ++a)
    for (int j = 0; j < L; ++j) t[j] += dN[a * L + j] * points[a];
  if (L == 1) return {t[0][1], 0.0 - t[0][0], 0.0};  // 0.0 - t: no negative zeros
  return Cross(t[0], t[1]);
}

Array3 GeometryType::UnitNormal(std::span<const Array3> points, const Array3& local) const {
  const Array3 n = AreaNormal(points, local);
  const double length = Norm(n);
  TESSERA_CHECK(length > 0.0, Name(), ": degenerate cell, zero normal at local point ", local);
  return n / length;
}

bool GeometryType::PointLocalCoordinates(std::span<const Array3> points, const Array3& global,
                                         Array3& local) const {
  CheckPoints(points);
  local = LocalCenter();
  const int L = LocalDimension(), W = WorkingSpaceDimension();
  if (L == 0) return true;
  // Newton's iteration is exact in one step for the affine families and quadratic
  // for the bilinear/trilinear ones; 50 steps only guard against divergence.
  for (int iteration = 0; iteration < 50; ++iteration) {
    const Array3 r = global - GlobalCoordinates(points, local);
    double J[3][3];
    FixedJacobian(points, local, J);
    // Square J: solve J d = r. Otherwise the Gauss-Newton normal equations
    // (J^T J) d = J^T r, whose solution is the orthogonal projection step.
    double A[3][3] = {}, b[3] = {};
    for (int j = 0; j < L; ++j) {
      for (int k = 0; k < L; ++k) {
        if (L == W) {
          A[j][k] = J[j][k];
        } else {
          for (int i = 0; i < W; ++i) A[j][k] += J[i][j] * J[i][k];
        }
      }
      if (L == W) {
        b[j] = r[j];
      } else {
        for (int i = 0; i < W; ++i) b[j] += J[i][j] * r[i];
      }
    }
    const double det = DetN(L, A);
    if (IsSingular(L, A, det)) return false;
    double Ainv[3][3];
    InverseN(L, A, det, Ainv);
    double step = 0.0;
    for (int j = 0; j < L; ++j) {
      double d = 0.0;
      for (int k = 0; k < L; ++k) d += Ainv[j][k] * b[k];
      local[j] += d;
      step = std::max(step, std::abs(d));
    }
    if (!std::isfinite(step)) return false;
    // Local coordinates are O(1), so an absolute step test is a relative one;
    // 1e-13 is a few hundred ulps, reached once the quadratic phase sets in.
    if (step < 1e-13) return true;
  }
  return false;
}

bool GeometryType::IsInside(std::span<const Array3> points, const Array3& global, Array3& local,
                            double tolerance) const {
  if (!PointLocalCoordinates(points, global, local)) return false;
  if (!IsInsideLocalSpace(local, tolerance)) return false;
  const int L = LocalDimension(), W = WorkingSpaceDimension();
  if (L == W) return true;  // the Newton residual vanishes: global = x(local)
  // Lines, surfaces and points: also the distance off the cell, against its size.
  const Array3 x = GlobalCoordinates(points, local);
  double distance2 = 0.0;
  for (int i = 0; i < W; ++i) distance2 += (global[i] - x[i]) * (global[i] - x[i]);
  double size = 1.0;
  if (L > 0) {
    const Array3 c = Center(points);
    size = 0.0;
    for (const Array3& p : points) size = std::max(size, Norm(p - c));
  }
  return std::sqrt(distance2) <= tolerance * size;
}

std::vector<std::pair<double, double>> GaussLegendre(int n) {
  TESSERA_CHECK(n >= 1, "Gauss-Legendre rule needs at least one point, got ", n);
  // Legendre P_n(x) and P_{n-1}(x) by the three-term recurrence
  // (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}. Long double (64-bit mantissa on
  // x86) so that the rounded abscissae and weights are within an ulp.
  using Real = long double;
  auto legendre = [n](Real x, Real& p_n, Real& p_n_minus_1) {
    Real p0 = 1.0L, p1 = x;
    for (int k = 1; k < n; ++k) {
      const Real p2 = ((2 * k + 1) * x * p1 - k * p0) / (k + 1);
      p0 = p1, p1 = p2;
    }
    p_n = p1;
    p_n_minus_1 = p0;
  };
  std::vector<std::pair<double, double>> rule(n);
  for (int i = 0; i < (n + 1) / 2; ++i) {
    // Newton's method for the i-th largest root of P_n from the classical
    // estimate cos(pi (i + 3/4) / (n + 1/2)); P_n' = n (x P_n - P_{n-1}) / (x^2 - 1).
    Real x = std::cos(std::numbers::pi_v<Real> * (i + 0.75L) / (n + 0.5L));
    Real p = 0.0L, q = 0.0L, dp = 1.0L;
    for (int iteration = 0; iteration < 100; ++iteration) {
      legendre(x, p, q);
      dp = n * (x * p - q) / (x * x - 1.0L);
      const Real dx = p / dp;
      x -= dx;
      if (std::abs(dx) <= 1e-19L) break;
    }
    legendre(x, p, q);
    dp = n * (x * p - q) / (x * x - 1.0L);
    const double w = static_cast<double>(2.0L / ((1.0L - x * x) * dp * dp));
    // Symmetric pairs set exactly, so odd monomials integrate to exactly zero.
    rule[i] = {-static_cast<double>(x), w};
    rule[n - 1 - i] = {static_cast<double>(x), w};
  }
  if (n % 2 == 1) rule[n / 2].first = 0.0;
  return rule;
}

void AddBarycentricOrbit(std::vector<IntegrationPoint>& rule, std::vector<double> barycentric,
                         double weight) {
  // next_permutation from the sorted sequence visits each distinct permutation
  // once, so repeated coordinates do not produce repeated points.
  std::sort(barycentric.begin(), barycentric.end());
  do {
    IntegrationPoint ip{{}, weight};
    for (std::size_t i = 1; i < barycentric.size(); ++i) ip.local[i - 1] = barycentric[i];
    rule.push_back(ip);
  } while (std::next_permutation(barycentric.begin(), barycentric.end()));
}

}  // namespace tessera
