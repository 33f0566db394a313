// LaplacianElement: stiffness and load of a linear triangle.
#include "laplacian_element.h"

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/geometries/geometry_type.h"
#include "laplace_application.h"

namespace laplace {

using namespace tessera;

void LaplacianElement::EquationIdVector(std::vector<IdType>& ids, const ProcessInfo&) const {
  const Geometry& g = GetGeometry();
  ids.resize(g.size());
  for (std::size_t a = 0; a < g.size(); ++a)
    ids[a] = g.Database()->EquationId(TEMPERATURE, g.NodeIndex(a));
}

void LaplacianElement::GetDofList(std::vector<DofReference>& dofs, const ProcessInfo&) const {
  const Geometry& g = GetGeometry();
  dofs.clear();
  for (std::size_t a = 0; a < g.size(); ++a) dofs.push_back({g.NodeIndex(a), &TEMPERATURE});
}

void LaplacianElement::CalculateLocalSystem(Matrix& lhs, Vector& rhs, const ProcessInfo&) {
  const Geometry& g = GetGeometry();
  const auto points = g.CurrentPoints();
  const std::span<const Array3> x(points.data(), points.size());
  const double k = GetProperties().GetValue(CONDUCTIVITY);
  const double source = GetValue(LAPLACE_SOURCE);

  // One Gauss point is exact: the gradients are constant and N integrates to A/3.
  Matrix dN_dX;
  double detJ = 0.0;
  g.Type().ShapeFunctionsGradients(x, g.Type().LocalCenter(), dN_dX, detJ);
  const double area = 0.5 * detJ;
  lhs = k * area * dN_dX * dN_dX.transpose();
  Vector temperature(3);
  for (int a = 0; a < 3; ++a) temperature[a] = g[a].GetSolutionStepValue(TEMPERATURE);
  rhs = Vector::Constant(3, source * area / 3.0) - lhs * temperature;
}

int LaplacianElement::Check(const ProcessInfo& info) const {
  Element::Check(info);
  if (!GetProperties().Has(CONDUCTIVITY) || GetProperties().GetValue(CONDUCTIVITY) <= 0.0)
    TESSERA_ERROR(Info(), ": properties ", GetProperties().Id(), " need a positive CONDUCTIVITY");
  if (GetGeometry().DomainSize() <= 0.0)
    TESSERA_ERROR(Info(), ": nodes are ordered clockwise (negative area)");
  const NodalDatabase& db = *GetGeometry().Database();
  if (!db.HasHistoricalVariable(TEMPERATURE))
    TESSERA_ERROR(Info(), ": TEMPERATURE must be a solution-step variable of the model part");
  return 0;
}

}  // namespace laplace
