// WallSearchRegion: the wall faces one rank of a distributed run searches
// (DistributedDem::SearchWallsNearDomain, docs/architecture.md "Distributed
// coupled DE-FE"). Faces marked `near_only` (a deformable structure's skin)
// enter the rank's wall search only where their box meets the region, the
// rank's box grown by a reach that covers every candidate of the spheres it
// owns; the other faces always do. The selection is made afresh at every
// wall search from the faces' boxes of that moment (Select), so it follows
// the walls and the boxes without a margin for motion, and the face rows
// are never renumbered: a face out of the selection is a row no candidate
// names, and a candidate keeps the face row (the serial run's order) it has
// in the whole set.
#pragma once

#include <cstdint>
#include <vector>

#include "applications/dem/utilities/neighbour_search.h"
#include "kernel/core/array3.h"

namespace tessera::dem {

struct WallSearchRegion {
  bool active = false;
  Array3 low{}, high{};                 // the region (sides may be infinite)
  std::vector<std::uint8_t> near_only;  // per face row: 1 = searched only near the region
  // Of the last Select: the boxes of the searched faces and their face rows
  // (ascending).
  FaceBoxes boxes;
  std::vector<std::uint32_t> rows;

  // The boxes to search among `all` (every face row's): `all` itself where the
  // region is inactive, else the selected faces' (kept in `boxes`).
  const FaceBoxes& Select(const FaceBoxes& all);
  // Candidates' face indices into Select's boxes -> face rows (an increasing
  // map: each particle's candidates stay sorted by face row).
  void ToFaceRows(std::vector<std::uint32_t>& face) const;
  // Faces in the last selection (every face row where inactive).
  std::size_t SelectedCount(std::size_t all) const { return active ? rows.size() : all; }
};

}  // namespace tessera::dem
