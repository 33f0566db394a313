// Tetrahedron4: the four-node linear tetrahedron (Kratos Tetrahedra3D4), nodes
// at local (0,0,0), (1,0,0), (0,1,0), (0,0,1).
#pragma once

#include "kernel/geometries/geometry_type.h"

namespace tessera {

class Tetrahedron4 : public GeometryType {
 public:
  Tetrahedron4() : GeometryType(3) {}

  std::string_view Name() const override { return "Tetrahedra3D4"; }
  GeometryFamily Family() const override { return GeometryFamily::Tetrahedron; }
  int LocalDimension() const override { return 3; }
  int PointsNumber() const override { return 4; }

  using GeometryType::ShapeFunctionsValues;  // keep the Vector overload visible
  void ShapeFunctionsValues(const Array3& local, double* N) const override;
  const std::vector<Array3>& LocalCoordinatesOfNodes() const override;

  // Order 1: centroid, degree 1. Order 2: the 4-point rule, degree 2 (the
  // classical rule for linear-tetrahedron mass matrices). Order 3: a 14-point
  // symmetric rule, degree 5. Order n >= 4: (n + 1)^3-point collapsed Gauss rule,
  // degree 2n - 1. All weights are positive and all points interior.
  const std::vector<IntegrationPoint>& IntegrationPoints(int order) const override;
  int ExactPolynomialDegree(int order) const override;
  // det J is constant on a linear tetrahedron, so one point gives the exact volume.
  int DefaultIntegrationOrder() const override { return 1; }

  // Edges (0,1), (1,2), (2,0), (0,3), (1,3), (2,3). Face i is the triangle
  // opposite node i, ordered so that its normal points out of the cell.
  const std::vector<std::vector<int>>& EdgesNodes() const override;
  const std::vector<std::vector<int>>& FacesNodes() const override;

  bool IsInsideLocalSpace(const Array3& local, double tolerance = 1e-10) const override;

 protected:
  void LocalGradients(const Array3& local, double* dN_dxi) const override;
};

}  // namespace tessera
