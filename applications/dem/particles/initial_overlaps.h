// The start's clean-up of overlapping spheres, as Kratos' DEM strategy does it
// before the first step: spheres wholly inside another are deleted
// (RemoveBallsInEmbeddedOption) and the remaining overlapping pairs shrunk
// until they just touch (CleanIndentationsOption). Both read only centres,
// radii and the candidate pairs, so the strategy (its rows) and a distributed
// start from pieces (every sphere's centre and radius on one rank,
// parallel/spheres_piece.h) compute them with the same arithmetic.
#pragma once

#include <cstdint>
#include <vector>

#include "applications/dem/utilities/periodic_box.h"
#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera::dem {

// Per sphere 1 kept, 0 deleted: of each candidate pair (first, second) whose
// smaller sphere lies wholly inside the larger one (d + r_small <= r_big;
// equal radii: the first), the smaller one. Cluster members (cluster[i] != 0)
// stay: a cluster goes only whole. `periodic`: separations to the nearest image.
std::vector<std::uint8_t> EmbeddedSpheres(const std::vector<std::uint32_t>& first,
                                          const std::vector<std::uint32_t>& second,
                                          const std::vector<Array3>& position,
                                          const std::vector<double>& radius,
                                          const std::vector<std::uint32_t>& cluster,
                                          const PeriodicBox& periodic, bool& any_deleted);

// One shrink of a sphere's radius by `factor` (< 1).
struct Shrink {
  std::uint32_t sphere;
  double factor;
};

// Each candidate pair in list order whose spheres overlap with the radii the
// pairs before it left (0 < d < R_i + R_j) is shrunk, both radii by the same
// factor d / (R_i + R_j), until it just touches: `radius` shrinks in place,
// and the shrinks are returned in the order applied (the pair's first sphere,
// then its second), for the masses and inertias (ShrinkMass). A chain along
// the list: a sphere's result depends on the pairs before it, however far.
std::vector<Shrink> ShrinkOverlappingPairs(const std::vector<std::uint32_t>& first,
                                           const std::vector<std::uint32_t>& second,
                                           const std::vector<Array3>& position,
                                           const std::vector<std::uint32_t>& cluster,
                                           const PeriodicBox& periodic,
                                           std::vector<double>& radius);

// The serial start's shrinks by element id, in the order applied: what a
// distributed start from pieces is given (ExplicitSolverStrategy::
// SetInitialShrinks).
struct InitialShrinks {
  std::vector<IdType> element_ids;
  std::vector<double> factors;
};

// A shrink's mass (∝ R³) and inertia (∝ R⁵), factor by factor.
inline void ShrinkMass(double factor, double& mass, double& inertia) {
  const double scale = factor * factor * factor;
  mass *= scale;
  inertia *= scale * factor * factor;
}

}  // namespace tessera::dem
