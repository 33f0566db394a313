// Triangle3: the three-node linear triangle (Kratos Triangle2D3 / Triangle3D3),
// nodes at local (0,0), (1,0), (0,1), counter-clockwise.
#pragma once

#include "kernel/geometries/geometry_type.h"

namespace tessera {

class Triangle3 : public GeometryType {
 public:
  explicit Triangle3(int working_dimension);  // 2 or 3

  std::string_view Name() const override;
  GeometryFamily Family() const override { return GeometryFamily::Triangle; }
  int LocalDimension() const override { return 2; }
  int PointsNumber() const override { return 3; }

  using GeometryType::ShapeFunctionsValues;  // keep the Vector overload visible
  void ShapeFunctionsValues(const Array3& local, double* N) const override;
  const std::vector<Array3>& LocalCoordinatesOfNodes() const override;

  // Order 1: centroid, degree 1. Order 2: 3 interior points, degree 2 (the
  // classical rule for linear-triangle mass matrices). Order 3: Radon's 7-point
  // rule, degree 5. Order n >= 4: (n + 1)^2-point collapsed Gauss rule, degree 2n.
  // All weights are positive and all points interior.
  const std::vector<IntegrationPoint>& IntegrationPoints(int order) const override;
  int ExactPolynomialDegree(int order) const override;
  // det J is constant on a linear triangle, so one point gives the exact area.
  int DefaultIntegrationOrder() const override { return 1; }

  // Edge i is opposite node i: (1,2), (2,0), (0,1); the faces are the edges.
  const std::vector<std::vector<int>>& EdgesNodes() const override;
  const std::vector<std::vector<int>>& FacesNodes() const override;

  bool IsInsideLocalSpace(const Array3& local, double tolerance = 1e-10) const override;

 protected:
  void LocalGradients(const Array3& local, double* dN_dxi) const override;
};

}  // namespace tessera
