// Point1: the one-node geometry.
#include "kernel/geometries/point.h"

#include "kernel/core/error.h"

namespace tessera {

Point1::Point1(int working_dimension) : GeometryType(working_dimension) {
  TESSERA_CHECK(working_dimension == 2 || working_dimension == 3,
                "Point geometry: working space dimension must be 2 or 3, got ", working_dimension);
}

std::string_view Point1::Name() const {
  return WorkingSpaceDimension() == 2 ? "Point2D" : "Point3D";
}

void Point1::ShapeFunctionsValues(const Array3& /*local*/, double* N) const { N[0] = 1.0; }

void Point1::LocalGradients(const Array3& /*local*/, double* /*dN_dxi*/) const {
  // LocalDimension is 0: the gradient matrix is 1 x 0 and has nothing to write.
}

const std::vector<Array3>& Point1::LocalCoordinatesOfNodes() const {
  static const std::vector<Array3> nodes{Array3{}};
  return nodes;
}

const std::vector<IntegrationPoint>& Point1::IntegrationPoints(int order) const {
  CheckOrder(order);
  static const std::vector<IntegrationPoint> rule{{Array3{}, 1.0}};
  return rule;
}

int Point1::ExactPolynomialDegree(int order) const {
  CheckOrder(order);
  return 2 * order - 1;
}

const std::vector<std::vector<int>>& Point1::EdgesNodes() const {
  static const std::vector<std::vector<int>> none;
  return none;
}

const std::vector<std::vector<int>>& Point1::FacesNodes() const { return EdgesNodes(); }

double Point1::DomainSize(std::span<const Array3> points) const {
  CheckPoints(points);
  return 0.0;
}

bool Point1::IsInsideLocalSpace(const Array3& /*local*/, double /*tolerance*/) const {
  return true;  // the reference cell is the single point; there is no local space to leave
}

}  // namespace tessera
