// Line2: the two-node straight line (Kratos Line2D2 / Line3D2), local
// coordinate xi in [-1, 1] with node 0 at xi = -1 and node 1 at xi = +1.
#pragma once

#include "kernel/geometries/geometry_type.h"

namespace tessera {

class Line2 : public GeometryType {
 public:
  explicit Line2(int working_dimension);  // 2 or 3

  std::string_view Name() const override;
  GeometryFamily Family() const override { return GeometryFamily::Line; }
  int LocalDimension() const override { return 1; }
  int PointsNumber() const override { return 2; }

  using GeometryType::ShapeFunctionsValues;  // keep the Vector overload visible
  void ShapeFunctionsValues(const Array3& local, double* N) const override;
  const std::vector<Array3>& LocalCoordinatesOfNodes() const override;

  // Order n: n-point Gauss-Legendre, exact for degree 2n - 1.
  const std::vector<IntegrationPoint>& IntegrationPoints(int order) const override;
  int ExactPolynomialDegree(int order) const override;
  // det J is constant on a straight line, so one point gives the exact length.
  int DefaultIntegrationOrder() const override { return 1; }

  const std::vector<std::vector<int>>& EdgesNodes() const override;  // the line itself
  const std::vector<std::vector<int>>& FacesNodes() const override;  // its two end points

  bool IsInsideLocalSpace(const Array3& local, double tolerance = 1e-10) const override;

 protected:
  void LocalGradients(const Array3& local, double* dN_dxi) const override;
};

}  // namespace tessera
