// Quadrilateral4: the four-node bilinear quadrilateral (Kratos Quadrilateral2D4 /
// Quadrilateral3D4), local coordinates in [-1, 1]^2, nodes counter-clockwise
// from (-1,-1): (-1,-1), (1,-1), (1,1), (-1,1).
#pragma once

#include "kernel/geometries/geometry_type.h"

namespace tessera {

class Quadrilateral4 : public GeometryType {
 public:
  explicit Quadrilateral4(int working_dimension);  // 2 or 3

  std::string_view Name() const override;
  GeometryFamily Family() const override { return GeometryFamily::Quadrilateral; }
  int LocalDimension() const override { return 2; }
  int PointsNumber() const override { return 4; }

  using GeometryType::ShapeFunctionsValues;  // keep the Vector overload visible
  void ShapeFunctionsValues(const Array3& local, double* N) const override;
  const std::vector<Array3>& LocalCoordinatesOfNodes() const override;

  // Order n: n x n tensor Gauss-Legendre, exact for degree 2n - 1 in each
  // variable (so for total degree 2n - 1).
  const std::vector<IntegrationPoint>& IntegrationPoints(int order) const override;
  int ExactPolynomialDegree(int order) const override;
  // 2 x 2 as in Kratos: the bilinear stiffness integrand needs it. det J is
  // linear in xi and eta (the xi*eta terms cancel), so the area is exact; for a
  // planar quadrilateral in 3D |x_xi x x_eta| is that same linear function.
  int DefaultIntegrationOrder() const override { return 2; }

  // Edges (0,1), (1,2), (2,3), (3,0); the faces are the edges.
  const std::vector<std::vector<int>>& EdgesNodes() const override;
  const std::vector<std::vector<int>>& FacesNodes() const override;

  bool IsInsideLocalSpace(const Array3& local, double tolerance = 1e-10) const override;

 protected:
  void LocalGradients(const Array3& local, double* dN_dxi) const override;
};

}  // namespace tessera
