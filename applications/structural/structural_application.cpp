// Registration of the structural application's components by their Kratos names.
#include "structural_application.h"

#include <memory>
#include <string>

#include "conditions/load_conditions.h"
#include "constitutive/elastic_laws.h"
#include "constitutive/hyperelastic_plastic_j2_law.h"
#include "constitutive/j2_plasticity_law.h"
#include "constitutive/truss_law.h"
#include "elements/membrane_element.h"
#include "elements/small_displacement_element.h"
#include "elements/total_lagrangian_element.h"
#include "elements/truss_element.h"
#include "kernel/registry/registry.h"

namespace tessera::structural {
namespace {

// Prototypes have no nodes; the registry gives each new entity its geometry.
template <class T>
std::unique_ptr<T> Prototype() {
  return std::make_unique<T>(0, Geometry(), nullptr);
}

}  // namespace

void RegisterStructuralApplication() {
  Registry& registry = Registry::Instance();
  if (registry.HasApplication("structural")) return;
  registry.BeginApplication("structural");

  registry.RegisterElement("SmallDisplacementElement2D3N", "Triangle2D3",
                           Prototype<SmallDisplacementElement<2, 3>>());
  registry.RegisterElement("SmallDisplacementElement2D4N", "Quadrilateral2D4",
                           Prototype<SmallDisplacementElement<2, 4>>());
  registry.RegisterElement("SmallDisplacementElement3D4N", "Tetrahedra3D4",
                           Prototype<SmallDisplacementElement<3, 4>>());
  registry.RegisterElement("SmallDisplacementElement3D8N", "Hexahedra3D8",
                           Prototype<SmallDisplacementElement<3, 8>>());
  registry.RegisterElement("TotalLagrangianElement2D3N", "Triangle2D3",
                           Prototype<TotalLagrangianElement<2, 3>>());
  registry.RegisterElement("TotalLagrangianElement2D4N", "Quadrilateral2D4",
                           Prototype<TotalLagrangianElement<2, 4>>());
  registry.RegisterElement("TotalLagrangianElement3D4N", "Tetrahedra3D4",
                           Prototype<TotalLagrangianElement<3, 4>>());
  registry.RegisterElement("TotalLagrangianElement3D8N", "Hexahedra3D8",
                           Prototype<TotalLagrangianElement<3, 8>>());
  registry.RegisterElement("TrussElement3D2N", "Line3D2", Prototype<TrussElement3D2N>());
  registry.RegisterElement("CableElement3D2N", "Line3D2", Prototype<CableElement3D2N>());
  // The membrane under its current Kratos name and the older PreStress one.
  for (const char* prefix : {"MembraneElement", "PreStressMembraneElement"}) {
    registry.RegisterElement(std::string(prefix) + "3D3N", "Triangle3D3",
                             Prototype<MembraneElement3D3N>());
    registry.RegisterElement(std::string(prefix) + "3D4N", "Quadrilateral3D4",
                             Prototype<MembraneElement3D4N>());
  }

  registry.RegisterCondition("PointLoadCondition2D1N", "Point2D",
                             Prototype<PointLoadCondition<2>>());
  registry.RegisterCondition("PointLoadCondition3D1N", "Point3D",
                             Prototype<PointLoadCondition<3>>());
  registry.RegisterCondition("LineLoadCondition2D2N", "Line2D2",
                             Prototype<LineLoadCondition2D2N>());
  registry.RegisterCondition("SurfaceLoadCondition3D3N", "Triangle3D3",
                             Prototype<SurfaceLoadCondition3D3N>());
  registry.RegisterCondition("SurfaceLoadCondition3D4N", "Quadrilateral3D4",
                             Prototype<SurfaceLoadCondition3D4N>());

  RegisterElasticLaws();
  RegisterJ2PlasticityLaws();
  RegisterHyperElasticPlasticJ2Laws();
  registry.RegisterConstitutiveLaw("TrussConstitutiveLaw",
                                   std::make_shared<TrussConstitutiveLaw>());
}

}  // namespace tessera::structural
