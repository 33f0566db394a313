// Point1: the one-node geometry (Kratos Point2D / Point3D), used by point
// conditions such as nodal loads.
#pragma once

#include "kernel/geometries/geometry_type.h"

namespace tessera {

class Point1 : public GeometryType {
 public:
  explicit Point1(int working_dimension);  // 2 or 3

  std::string_view Name() const override;
  GeometryFamily Family() const override { return GeometryFamily::Point; }
  int LocalDimension() const override { return 0; }
  int PointsNumber() const override { return 1; }

  using GeometryType::ShapeFunctionsValues;  // keep the Vector overload visible
  void ShapeFunctionsValues(const Array3& local, double* N) const override;
  const std::vector<Array3>& LocalCoordinatesOfNodes() const override;

  // One point of weight 1 for every order: integrating over a point is evaluating
  // there, exact for every polynomial (reported as 2 * order - 1 like the tensor families).
  const std::vector<IntegrationPoint>& IntegrationPoints(int order) const override;
  int ExactPolynomialDegree(int order) const override;
  int DefaultIntegrationOrder() const override { return 1; }

  const std::vector<std::vector<int>>& EdgesNodes() const override;  // none
  const std::vector<std::vector<int>>& FacesNodes() const override;  // none

  // A point has no length, area or volume (Kratos' convention).
  double DomainSize(std::span<const Array3> points) const override;
  bool IsInsideLocalSpace(const Array3& local, double tolerance = 1e-10) const override;

 protected:
  void LocalGradients(const Array3& local, double* dN_dxi) const override;
};

}  // namespace tessera
