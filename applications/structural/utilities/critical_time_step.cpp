// EstimateCriticalTimeStep and the characteristic element length (see the header).
#include "utilities/critical_time_step.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/geometries/geometry_type.h"
#include "kernel/solving/sparse_types.h"
#include "structural_variables.h"

namespace tessera::structural {
namespace {

Eigen::Vector3d At(const Geometry::Points& X, int a) { return {X[a][0], X[a][1], X[a][2]}; }

// Length of an edge, or area of a (planar) triangular or quadrilateral face.
double FacetMeasure(const Geometry::Points& X, const std::vector<int>& facet) {
  if (facet.size() == 2) return (At(X, facet[1]) - At(X, facet[0])).norm();
  if (facet.size() == 3)
    return 0.5 *
           (At(X, facet[1]) - At(X, facet[0])).cross(At(X, facet[2]) - At(X, facet[0])).norm();
  // quadrilateral: half the cross product of the diagonals
  return 0.5 * (At(X, facet[2]) - At(X, facet[0])).cross(At(X, facet[3]) - At(X, facet[1])).norm();
}

}  // namespace

double CharacteristicLength(const Geometry& geometry) {
  const GeometryType& type = geometry.Type();
  const Geometry::Points X = geometry.InitialPoints();
  const int dim = type.LocalDimension();
  const auto& facets = dim == 2 ? type.EdgesNodes() : type.FacesNodes();
  double largest = 0.0;
  for (const std::vector<int>& facet : facets) largest = std::max(largest, FacetMeasure(X, facet));
  const double size = type.DomainSize({X.data(), X.size()});
  const bool simplex =
      type.Family() == GeometryFamily::Triangle || type.Family() == GeometryFamily::Tetrahedron;
  return (simplex ? dim : 1) * size / largest;
}

double EstimateCriticalTimeStep(ModelPart& model_part) {
  const ModelPart::IndexSet& elements = model_part.ElementIndices();
  if (elements.empty())
    TESSERA_ERROR("critical time step: model part '", model_part.Name(), "' has no elements");
  std::vector<double> steps(elements.size());
  auto range = model_part.Elements();
  std::vector<Element*> pointers;
  pointers.reserve(elements.size());
  for (Element& e : range) pointers.push_back(&e);
  ParallelForChecked(pointers.size(), [&](std::size_t k) {
    const Element& e = *pointers[k];
    if (!e.HasProperties()) TESSERA_ERROR(e.Info(), ": has no properties");
    const Properties& p = e.GetProperties();
    for (const Variable<double>* v : {&YOUNG_MODULUS, &DENSITY})
      if (!p.Has(*v) || !(p.GetValue(*v) > 0.0))
        TESSERA_ERROR(e.Info(), ": properties ", p.Id(), " need a positive ", v->Name(),
                      " for the explicit critical time step");
    const double nu = p.Has(POISSON_RATIO) ? p.GetValue(POISSON_RATIO) : 0.0;
    if (!(nu >= 0.0 && nu < 0.5))
      TESSERA_ERROR(e.Info(), ": POISSON_RATIO = ", nu, " of properties ", p.Id(),
                    " is outside [0, 1/2)");
    const double E = p.GetValue(YOUNG_MODULUS), rho = p.GetValue(DENSITY);
    if (e.GetGeometry().Type().LocalDimension() == 1) {
      // A bar or cable: the axial wave speed, raised by a tensile prestress,
      // whose geometric stiffness carries transverse waves at sqrt(S_0 / rho).
      const double prestress =
          p.Has(TRUSS_PRESTRESS_PK2) ? std::max(p.GetValue(TRUSS_PRESTRESS_PK2), 0.0) : 0.0;
      const Geometry::Points X = e.GetGeometry().InitialPoints();
      steps[k] = e.GetGeometry().Type().DomainSize({X.data(), X.size()}) /
                 std::sqrt((E + prestress) / rho);
      return;
    }
    const double c = std::sqrt(E * (1.0 - nu) / (rho * (1.0 + nu) * (1.0 - 2.0 * nu)));
    steps[k] = CharacteristicLength(e.GetGeometry()) / c;
  });
  return *std::min_element(steps.begin(), steps.end());
}

}  // namespace tessera::structural
