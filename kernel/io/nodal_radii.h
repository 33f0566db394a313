// The RADIUS of the nodes a results writer shows (VtkOutput, Hdf5Output):
// the model part's historical RADIUS where it stores one, else its
// non-historical column, else 0. The writers then let a sphere element's own
// RADIUS win over its node's.
#pragma once

#include <variant>
#include <vector>

#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera {

// One radius per entry of `points` (positions in the root database).
inline std::vector<double> NodalRadii(ModelPart& model_part, const std::vector<IndexType>& points) {
  NodalDatabase& db = model_part.Nodal();
  std::vector<double> radii(points.size(), 0.0);
  const bool historical = db.HasHistoricalVariable(RADIUS);
  const bool non_historical = db.HasNonHistoricalColumn(RADIUS);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (historical)
      radii[i] = db.Historical(RADIUS, points[i]);
    else if (non_historical)
      radii[i] = std::get<double>(db.GetNonHistorical(RADIUS, points[i]));
  }
  return radii;
}

}  // namespace tessera
