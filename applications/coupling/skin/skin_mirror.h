// SkinMirror: the FE skin nodes and their mirrors, the nodes of the DEM walls
// made from the skin (tessera.coupling.SkinWalls), row by row in the two root
// model parts' nodal columns. Every explicit step the mirrors are put where
// the structure is and the walls' contact forces come back as the structure's
// loads; both passes read and write whole columns by row, in parallel, with
// no allocation after construction (the coupled step's transfers were numpy
// gathers and scatters, serial and several times as long).
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/core/types.h"

namespace tessera {
class ModelPart;
}

namespace tessera::coupling {

class SkinMirror {
 public:
  // fe_rows[k] and wall_rows[k]: the positions of skin node k in the
  // structure's and the walls' root model parts (both root model parts
  // themselves, the structure's with DISPLACEMENT, VELOCITY, DEM_NODAL_FORCE
  // and DEM_SURFACE_LOAD, the walls' with DISPLACEMENT, VELOCITY,
  // CONTACT_FORCES and DEM_NODAL_AREA as historical variables; a missing one
  // or a row out of range is an error).
  SkinMirror(ModelPart& structure, ModelPart& walls, const std::vector<std::int64_t>& fe_rows,
             const std::vector<std::int64_t>& wall_rows);

  // The mirrors at X + u of their FE nodes, with the FE nodes' DISPLACEMENT
  // and VELOCITY.
  void MoveWalls();

  // DEM_NODAL_FORCE of each FE skin node = CONTACT_FORCES of its mirror (the
  // DEM step's WriteToNodes), DEM_SURFACE_LOAD = that over the mirror's
  // DEM_NODAL_AREA (zero where the area is zero).
  void TakeLoads();

 private:
  ModelPart& structure_;
  ModelPart& walls_;
  std::vector<IndexType> fe_rows_, wall_rows_;
};

}  // namespace tessera::coupling
