// The `laplace` example application: steady heat conduction -div(k grad T) = Q
// on linear triangles, and the variable it adds (LAPLACE_SOURCE = Q).
#pragma once

#include "kernel/core/variable.h"

namespace laplace {

TESSERA_DECLARE_VARIABLE(double, LAPLACE_SOURCE);

// Registers the application's elements with Tessera's registry (idempotent).
void RegisterLaplaceApplication();

}  // namespace laplace
