// Registration of the `laplace` application: its variable and its element.
#include "laplace_application.h"

#include "elements/laplacian_element.h"
#include "kernel/registry/registry.h"

namespace laplace {

TESSERA_DEFINE_VARIABLE(double, LAPLACE_SOURCE);

void RegisterLaplaceApplication() {
  auto& registry = tessera::Registry::Instance();
  if (registry.HasApplication("laplace")) return;
  registry.BeginApplication("laplace");
  // The prototype has no nodes; the registry gives each new element its geometry.
  registry.RegisterElement("LaplacianElement2D3N", "Triangle2D3",
                           std::make_unique<LaplacianElement>(0, tessera::Geometry(), nullptr));
}

}  // namespace laplace
