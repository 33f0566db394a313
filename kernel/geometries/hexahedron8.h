// Hexahedron8: the eight-node trilinear hexahedron (Kratos Hexahedra3D8), local
// coordinates in [-1, 1]^3: bottom face 0-1-2-3 counter-clockwise at zeta = -1,
// top face 4-5-6-7 above them at zeta = +1.
#pragma once

#include "kernel/geometries/geometry_type.h"

namespace tessera {

class Hexahedron8 : public GeometryType {
 public:
  Hexahedron8() : GeometryType(3) {}

  std::string_view Name() const override { return "Hexahedra3D8"; }
  GeometryFamily Family() const override { return GeometryFamily::Hexahedron; }
  int LocalDimension() const override { return 3; }
  int PointsNumber() const override { return 8; }

  using GeometryType::ShapeFunctionsValues;  // keep the Vector overload visible
  void ShapeFunctionsValues(const Array3& local, double* N) const override;
  const std::vector<Array3>& LocalCoordinatesOfNodes() const override;

  // Order n: n x n x n tensor Gauss-Legendre, exact for degree 2n - 1 in each
  // variable (so for total degree 2n - 1).
  const std::vector<IntegrationPoint>& IntegrationPoints(int order) const override;
  int ExactPolynomialDegree(int order) const override;
  // 2 x 2 x 2 as in Kratos. det J of a trilinear map has degree at most 2 in
  // each variable, so the volume is exact.
  int DefaultIntegrationOrder() const override { return 2; }

  // The 12 edges: bottom ring, top ring, then the verticals (0,4) ... (3,7).
  // Faces (Kratos order): bottom (3,2,1,0), sides (0,1,5,4), (1,2,6,5),
  // (2,3,7,6), (3,0,4,7), top (4,5,6,7); each counter-clockwise seen from
  // outside, so its quadrilateral normal points out of the cell.
  const std::vector<std::vector<int>>& EdgesNodes() const override;
  const std::vector<std::vector<int>>& FacesNodes() const override;

  bool IsInsideLocalSpace(const Array3& local, double tolerance = 1e-10) const override;

 protected:
  void LocalGradients(const Array3& local, double* dN_dxi) const override;
};

}  // namespace tessera
