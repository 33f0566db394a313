// DistributedDem::SearchWallsNearDomain (see distributed_dem.h): in a coupled
// run each rank searches only the skin faces near its own box, instead of
// the whole skin of the structure (walls/wall_search_region.h).
//
// Why the region holds every candidate face of an owned sphere: the search
// pairs a sphere of radius r at x with a face when the face's box is closer
// to x than r + the wall search tolerance (NeighbourSearch::
// FindWallCandidates). At a search an owned sphere's site is in the rank's
// box (Migrate runs first), its centre at most the largest cluster offset D
// from the site, and the ghost layer is at least 2.1 (r_max + D), so a face
// box within layer + tolerance of the box holds all of them; the faces are
// selected from their boxes at that very search, so their motion needs no
// margin. A ghost may miss a face beyond the region, but its results are
// its owner's after each step (RefreshGhosts), and a sphere changing owner
// brings its wall histories with it.
#include <unordered_map>
#include <vector>

#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"

namespace tessera::dem {

void DistributedDem::SearchWallsNearDomain(const std::vector<IdType>& condition_ids) {
  if (boxes_.empty())
    TESSERA_ERROR("DistributedDem::SearchWallsNearDomain: after Start (the boxes are made there)");
  const RigidFaceStorage& faces = s_.faces_;
  std::unordered_map<IdType, std::size_t> row_of;
  for (std::size_t f = 0; f < faces.size(); ++f) row_of.emplace(faces.condition_id[f], f);
  WallSearchRegion& region = s_.wall_region_;
  region.near_only.assign(faces.size(), 0);
  for (const IdType id : condition_ids) {
    const auto found = row_of.find(id);
    if (found == row_of.end())
      TESSERA_ERROR("DistributedDem::SearchWallsNearDomain: condition ", id,
                    " is no face of the DEM's walls");
    region.near_only[found->second] = 1;
  }
  region.active = true;
  UpdateWallRegion();
  region.Select(faces.boxes);  // what NumberOfSearchedFaces counts until the next search
}

void DistributedDem::UpdateWallRegion() {
  WallSearchRegion& region = s_.wall_region_;
  if (!region.active) return;
  const double reach = layer_ + s_.settings_.wall_search_tolerance;
  const RcbBox& box = boxes_[static_cast<std::size_t>(rank_)];
  for (int k = 0; k < 3; ++k) {
    region.low[k] = box.low[k] - reach;  // an open side stays infinite
    region.high[k] = box.high[k] + reach;
  }
}

std::size_t DistributedDem::NumberOfSearchedFaces() const {
  return s_.wall_region_.SelectedCount(s_.faces_.size());
}

}  // namespace tessera::dem
