// The variables of the DE-FE coupling application.
#pragma once

#include "kernel/core/variable.h"

namespace tessera::coupling {

// The force the DEM contacts put on an FE node in the last DEM step (N): the
// reactions of the sphere-skin contacts, spread to the face's nodes by the
// transfer method (direct interpolation, thesis 4.57). The structure's
// DemContactLoadCondition adds it to the node's external force.
TESSERA_DECLARE_3D_VARIABLE_WITH_COMPONENTS(DEM_NODAL_FORCE);
// DEM_NODAL_FORCE over the node's share of the skin area (Pa): Kratos'
// DEM_SURFACE_LOAD, a traction for output.
TESSERA_DECLARE_3D_VARIABLE_WITH_COMPONENTS(DEM_SURFACE_LOAD);

}  // namespace tessera::coupling
