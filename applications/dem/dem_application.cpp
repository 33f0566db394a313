// Registration of the `dem` application's elements and conditions. The
// variables register themselves when the library loads (dem_variables.cpp).
#include "applications/dem/dem_application.h"

#include <memory>

#include "applications/dem/conditions/rigid_face.h"
#include "applications/dem/elements/spheric_particle.h"
#include "kernel/registry/registry.h"

namespace tessera::dem {
namespace {

// Prototypes have no nodes; the registry gives each new entity its geometry.
template <class T>
std::unique_ptr<T> Prototype() {
  return std::make_unique<T>(0, Geometry(), nullptr);
}

}  // namespace

void RegisterDemApplication() {
  Registry& registry = Registry::Instance();
  if (registry.HasApplication("dem")) return;
  registry.BeginApplication("dem");

  // Particles: one centre node each; the radius is nodal data, not geometry.
  registry.RegisterElement("SphericParticle3D", "Sphere3D1", Prototype<SphericParticle>());
  registry.RegisterElement("SphericContinuumParticle3D", "Sphere3D1",
                           Prototype<SphericContinuumParticle>());
  registry.RegisterElement("CylinderParticle2D", "Sphere3D1", Prototype<CylinderParticle>());
  registry.RegisterElement("SphericPartDEMElement3D", "Sphere3D1",
                           Prototype<SphericPartDemElement3D>());
  registry.RegisterElement("SphericContPartDEMElement3D", "Sphere3D1",
                           Prototype<SphericContPartDemElement3D>());
  registry.RegisterElement("Cluster3D", "Sphere3D1", Prototype<Cluster>());

  // Rigid walls.
  registry.RegisterCondition("RigidFace3D2N", "Line3D2", Prototype<RigidFace>());
  registry.RegisterCondition("RigidFace3D3N", "Triangle3D3", Prototype<RigidFace>());
  registry.RegisterCondition("RigidFace3D4N", "Quadrilateral3D4", Prototype<RigidFace>());
  registry.RegisterCondition("RigidEdge3D2N", "Line3D2", Prototype<RigidEdge>());
  registry.RegisterCondition("RigidEdge2D2N", "Line2D2", Prototype<RigidEdge2D>());
}

}  // namespace tessera::dem
