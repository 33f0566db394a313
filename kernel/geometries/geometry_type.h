// GeometryType: the abstract, stateless description of one kind of cell
// (shape functions, integration rules, topology) and the geometric algorithms
// that follow from it (Jacobians, measures, normals, inverse mapping).
//
// A GeometryType holds no coordinates: every coordinate-dependent method takes
// the node positions as a span, so one static instance per .mdpa geometry name
// serves every element of the model and all methods are safe to call from many
// threads at once.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera {

enum class GeometryFamily { Point, Line, Triangle, Quadrilateral, Tetrahedron, Hexahedron, Sphere };

// Name of a family ("Triangle", ...), for messages.
std::string_view FamilyName(GeometryFamily family);

// One quadrature point of a rule on the reference cell. The weights of a rule sum
// to the measure of the reference cell (2 for the line, 1/2 for the triangle, ...).
struct IntegrationPoint {
  Array3 local;
  double weight;
};

class GeometryType {
 public:
  // Upper bounds used for stack buffers, so the hot paths never allocate.
  static constexpr int kMaxPointsNumber = 8;
  static constexpr int kMaxIntegrationOrder = 10;

  virtual ~GeometryType() = default;

  // --- Identity -----------------------------------------------------------------
  virtual std::string_view Name() const = 0;  // Kratos .mdpa name, e.g. "Triangle2D3"
  virtual GeometryFamily Family() const = 0;
  virtual int LocalDimension() const = 0;  // dimension of the reference cell
  int WorkingSpaceDimension() const { return working_dimension_; }
  virtual int PointsNumber() const = 0;

  // --- Shape functions ------------------------------------------------------------
  // N must hold PointsNumber() values.
  virtual void ShapeFunctionsValues(const Array3& local, double* N) const = 0;
  Vector ShapeFunctionsValues(const Array3& local) const;
  // dN_dxi(a, j) = dN_a / dxi_j; resized to PointsNumber() x LocalDimension().
  void ShapeFunctionsLocalGradients(const Array3& local, Matrix& dN_dxi) const;
  virtual const std::vector<Array3>& LocalCoordinatesOfNodes() const = 0;
  // Centre of the reference cell (the starting point of the inverse mapping).
  Array3 LocalCenter() const;

  // --- Integration ------------------------------------------------------------------
  // Rule of the given order, 1 <= order <= MaxIntegrationOrder(); which polynomial
  // degree it integrates exactly is ExactPolynomialDegree(order) (see each family).
  virtual const std::vector<IntegrationPoint>& IntegrationPoints(int order) const = 0;
  virtual int ExactPolynomialDegree(int order) const = 0;
  int MaxIntegrationOrder() const { return kMaxIntegrationOrder; }
  virtual int DefaultIntegrationOrder() const = 0;

  // --- Topology (local node indices) -----------------------------------------------
  // Edges: the one-dimensional sub-cells. Faces: the boundary facets, one
  // dimension below the cell (end points of a line, edges of a triangle or
  // quadrilateral, faces of a solid), ordered so that their normals point out of
  // the cell (for 2D cells: counter-clockwise, so that the line normal points out).
  virtual const std::vector<std::vector<int>>& EdgesNodes() const = 0;
  virtual const std::vector<std::vector<int>>& FacesNodes() const = 0;
  virtual GeometryFamily FaceFamily(int face) const;
  int EdgesNumber() const { return static_cast<int>(EdgesNodes().size()); }
  int FacesNumber() const { return static_cast<int>(FacesNodes().size()); }

  // --- Geometry of a cell with the given node coordinates ----------------------------
  // points.size() must be PointsNumber(); only the first WorkingSpaceDimension()
  // components of each point are used by Jacobian-based methods.

  // x(local) = sum_a N_a(local) x_a (all three components).
  Array3 GlobalCoordinates(std::span<const Array3> points, const Array3& local) const;
  // J(i, j) = dx_i / dxi_j, resized to WorkingSpaceDimension() x LocalDimension().
  void Jacobian(std::span<const Array3> points, const Array3& local, Matrix& J) const;
  // det J for square J (signed: negative for an inverted node ordering), else
  // sqrt(det(J^T J)), the length/area density of a line/surface (1 for points).
  double DeterminantOfJacobian(std::span<const Array3> points, const Array3& local) const;
  // dN_dX(a, i) = dN_a / dx_i, resized to PointsNumber() x WorkingSpaceDimension().
  // Only for cells that fill their working space (LocalDimension == WorkingSpaceDimension).
  void ShapeFunctionsGradients(std::span<const Array3> points, const Array3& local, Matrix& dN_dX,
                               double& detJ) const;
  // J^-1 into the top-left LocalDimension() square of J_inv; returns det J.
  // Same cells and checks as ShapeFunctionsGradients, whose gradients are
  // GlobalGradients(dN/dxi, J^-1): a caller may keep J^-1 (d^2 numbers a
  // point) instead of dN_dX (d per node) and rebuild the same gradients, bitwise.
  double InverseJacobian(std::span<const Array3> points, const Array3& local,
                         double J_inv[3][3]) const;
  // dN_dX(a, i) = sum_j dN_dxi(a, j) J_inv(j, i), each sum from zero in the
  // order of j: the one arithmetic of ShapeFunctionsGradients and of the
  // callers that rebuild gradients from a kept J^-1 (SolidElement). Any types
  // indexed (r, c); the node loop innermost, so that it vectorises where
  // dN_dX holds a column's nodes contiguously (column-major Eigen).
  template <class TLocal, class TInverse, class TGlobal>
  static void GlobalGradients(int nodes, int dim, const TLocal& dN_dxi, const TInverse& J_inv,
                              TGlobal& dN_dX) {
    for (int i = 0; i < dim; ++i) {
      for (int a = 0; a < nodes; ++a) dN_dX(a, i) = 0.0;
      for (int j = 0; j < dim; ++j)
        for (int a = 0; a < nodes; ++a) dN_dX(a, i) += dN_dxi(a, j) * J_inv(j, i);
    }
  }

  // Length, area or volume: the integral of DeterminantOfJacobian over the
  // reference cell, so signed for cells that fill their working space (negative
  // means an inverted node ordering). Exact for straight, planar and affine cells
  // and for bilinear/trilinear ones, whose det J is a polynomial integrated by the
  // default rule; a Gauss approximation only for warped (non-planar) 3D
  // quadrilaterals, where it is a square root.
  virtual double DomainSize(std::span<const Array3> points) const;
  // Average of the nodes (Kratos' Center); equals x(LocalCenter()) for every family here.
  Array3 Center(std::span<const Array3> points) const;

  // Lines: the tangent dx/dxi rotated by -90 degrees in the xy-plane, (t_y, -t_x, 0),
  // so |n| = |tangent| = length / 2. Triangles and quadrilaterals: dx/dxi x dx/deta,
  // so |n| = DeterminantOfJacobian. Throws for the other families.
  Array3 AreaNormal(std::span<const Array3> points, const Array3& local) const;
  Array3 UnitNormal(std::span<const Array3> points, const Array3& local) const;

  // Whether a local point lies in the reference cell, within tolerance.
  virtual bool IsInsideLocalSpace(const Array3& local, double tolerance = 1e-10) const = 0;
  // Newton (Gauss-Newton for lines and surfaces, i.e. the orthogonal projection)
  // inverse of x(local); returns false if it did not converge or J is singular.
  // local is the last iterate either way.
  bool PointLocalCoordinates(std::span<const Array3> points, const Array3& global,
                             Array3& local) const;
  // Whether global lies in the cell: the inverse map converged, the local point is
  // inside the reference cell within tolerance and, for lines and surfaces, the
  // distance to the cell is at most tolerance times the cell size (for points and
  // spheres, which have no size: at most tolerance). local receives the local
  // coordinates in every case.
  bool IsInside(std::span<const Array3> points, const Array3& global, Array3& local,
                double tolerance = 1e-10) const;

 protected:
  explicit GeometryType(int working_dimension) : working_dimension_(working_dimension) {}
  GeometryType(const GeometryType&) = default;
  GeometryType& operator=(const GeometryType&) = default;

  // Row-major PointsNumber() x LocalDimension() local gradients into a caller's
  // buffer, so that Jacobians and Newton iterations never allocate.
  virtual void LocalGradients(const Array3& local, double* dN_dxi) const = 0;

  // Throws unless points.size() == PointsNumber(); names the geometry in the message.
  void CheckPoints(std::span<const Array3> points) const;
  // Throws unless 1 <= order <= MaxIntegrationOrder().
  void CheckOrder(int order) const;

 private:
  // J into the top-left WorkingSpaceDimension() x LocalDimension() block of a 3x3.
  void FixedJacobian(std::span<const Array3> points, const Array3& local, double J[3][3]) const;

  int working_dimension_;
};

// Builders shared by the family files: the n-point Gauss-Legendre rule on [-1, 1]
// (exact for degree 2n - 1), as (abscissa, weight) pairs in ascending abscissa.
std::vector<std::pair<double, double>> GaussLegendre(int n);
// Appends to rule every distinct permutation of the barycentric coordinates
// (lambda_0, ..., lambda_d) of a simplex as local point (lambda_1, ..., lambda_d),
// each with the given weight: one symmetry orbit of a symmetric simplex rule.
void AddBarycentricOrbit(std::vector<IntegrationPoint>& rule, std::vector<double> barycentric,
                         double weight);

}  // namespace tessera
