// Definitions (and so registration at library load) of the coupling variables.
#include "coupling_variables.h"

namespace tessera::coupling {

TESSERA_DEFINE_3D_VARIABLE_WITH_COMPONENTS(DEM_NODAL_FORCE);
TESSERA_DEFINE_3D_VARIABLE_WITH_COMPONENTS(DEM_SURFACE_LOAD);

}  // namespace tessera::coupling
