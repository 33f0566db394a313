// Registration of the coupling application's components.
#include "coupling_application.h"

#include <memory>

#include "conditions/dem_contact_load_condition.h"
#include "kernel/registry/registry.h"

namespace tessera::coupling {

void RegisterCouplingApplication() {
  Registry& registry = Registry::Instance();
  if (registry.HasApplication("coupling")) return;
  registry.BeginApplication("coupling");
  registry.RegisterCondition("DemContactLoadCondition2D1N", "Point2D",
                             std::make_unique<DemContactLoadCondition<2>>(0, Geometry(), nullptr));
  registry.RegisterCondition("DemContactLoadCondition3D1N", "Point3D",
                             std::make_unique<DemContactLoadCondition<3>>(0, Geometry(), nullptr));
}

}  // namespace tessera::coupling
