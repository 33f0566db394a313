// WallSearchRegion: selecting the faces a rank searches (wall_search_region.h).
#include "applications/dem/walls/wall_search_region.h"

#include "kernel/core/error.h"

namespace tessera::dem {

const FaceBoxes& WallSearchRegion::Select(const FaceBoxes& all) {
  if (!active) return all;
  const std::size_t n = all.min.size();
  if (near_only.size() != n)
    TESSERA_ERROR("WallSearchRegion: ", near_only.size(), " face flags for ", n,
                  " face rows (the walls changed after the selection was set)");
  boxes.min.clear(), boxes.max.clear(), rows.clear();
  for (std::size_t f = 0; f < n; ++f) {
    bool keep = true;
    if (near_only[f])
      for (int k = 0; k < 3; ++k)
        if (all.max[f][k] < low[k] || all.min[f][k] > high[k]) keep = false;
    if (!keep) continue;
    boxes.min.push_back(all.min[f]);
    boxes.max.push_back(all.max[f]);
    rows.push_back(static_cast<std::uint32_t>(f));
  }
  return boxes;
}

void WallSearchRegion::ToFaceRows(std::vector<std::uint32_t>& face) const {
  if (!active) return;
  for (std::uint32_t& f : face) f = rows[f];
}

}  // namespace tessera::dem
