// DistributedDem's skin placement (see distributed_dem.h): a distributed
// coupled run sends each rank, between wall searches, only the states of the
// skin nodes its searched faces use (applications/coupling/python_scripts/
// distributed_coupling.py), so a rank's other skin faces keep older
// vertices. Two things keep the serial run's bits on the faces it searches:
//
// - The skin's faces are read from their nodes inside the step, by the
//   coupling's callback, once the step knows whether it searches (the whole
//   skin then, every face read from current vertices and each face's step
//   displacement from its previous ones), instead of at the step's start.
// - The adaptive search's wall displacement, the largest displacement of a
//   wall vertex since the last search, is a max over every vertex in the
//   serial run: the owners of the skin's nodes measure theirs before the step
//   against the points the last search saw, with the strategy's arithmetic,
//   and the run's maximum raises every rank's (a rank's own pass over its
//   older vertices finds displacements the earlier steps already counted).
#include <algorithm>
#include <cmath>
#include <vector>

#include "applications/dem/parallel/distributed_dem.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {

void DistributedDem::PlaceSkinInStep(std::function<void(bool)> place) {
  const WallSearchRegion& region = s_.wall_region_;
  if (!region.active)
    TESSERA_ERROR(
        "DistributedDem::PlaceSkinInStep: after SearchWallsNearDomain (the skin's faces)");
  s_.deferred_faces_ = region.near_only;
  s_.hooks_.place_walls = std::move(place);
  // Per wall node index: the first (face, vertex) slot of a skin face using it.
  const RigidFaceStorage& faces = s_.faces_;
  skin_vertex_.clear();
  for (std::size_t f = 0; f < faces.size(); ++f) {
    if (!region.near_only[f]) continue;
    for (int k = 0; k < faces.vertex_count[f]; ++k) {
      const auto node = static_cast<std::size_t>(faces.nodes[f][k]);
      if (node >= skin_vertex_.size()) skin_vertex_.resize(node + 1, -1);
      if (skin_vertex_[node] < 0) skin_vertex_[node] = static_cast<std::int64_t>(4 * f + k);
    }
  }
}

void DistributedDem::ReadSkinFaces() {
  if (s_.deferred_faces_.empty())
    TESSERA_ERROR("DistributedDem::ReadSkinFaces: after PlaceSkinInStep");
  UpdateRigidFacesWhere(*s_.walls_, s_.faces_, s_.deferred_faces_, 1);
}

std::int64_t DistributedDem::SkinVertex(std::int64_t node) const {
  const std::int64_t slot = node >= 0 && static_cast<std::size_t>(node) < skin_vertex_.size()
                                ? skin_vertex_[static_cast<std::size_t>(node)]
                                : -1;
  if (slot < 0) TESSERA_ERROR("DistributedDem: wall node index ", node, " is no skin vertex");
  return slot;
}

std::vector<double> DistributedDem::SkinFacePoints(
    const std::vector<std::int64_t>& wall_nodes) const {
  std::vector<double> out(3 * wall_nodes.size());
  for (std::size_t i = 0; i < wall_nodes.size(); ++i) {
    const std::int64_t slot = SkinVertex(wall_nodes[i]);
    const Array3& x = s_.faces_.points[static_cast<std::size_t>(slot / 4)][slot % 4];
    for (int c = 0; c < 3; ++c) out[3 * i + c] = x[c];
  }
  return out;
}

void DistributedDem::NoteSkinDisplacement(const std::vector<std::int64_t>& wall_nodes,
                                          const std::vector<double>& positions) {
  if (positions.size() != 3 * wall_nodes.size())
    TESSERA_ERROR("DistributedDem::NoteSkinDisplacement: ", positions.size(), " coordinates for ",
                  wall_nodes.size(), " nodes");
  ExplicitSolverStrategy& s = s_;
  // Every rank alike: the same settings, faces and searches.
  if (!s.AdaptiveSearchArmed() || !(s.settings_.wall_search_tolerance > 0.0) ||
      s.search_face_points_.size() != s.faces_.size())
    return;
  // As CandidatesMayMissContacts: squared displacements, a max (exact).
  double largest = 0.0;
  for (std::size_t i = 0; i < wall_nodes.size(); ++i) {
    const std::int64_t slot = SkinVertex(wall_nodes[i]);
    const Array3& reference = s.search_face_points_[static_cast<std::size_t>(slot / 4)][slot % 4];
    const Array3 d =
        Array3{positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]} - reference;
    largest = std::max(largest, Dot(d, d));
  }
  largest = comm_->MaxAll(largest);
  // The strategy keeps the displacement itself and squares it again (the
  // square root of a rounded square is the number itself).
  s.wall_displacement_ = std::max(s.wall_displacement_, std::sqrt(largest));
}

std::vector<IdType> DistributedDem::SearchedFaceIds() const {
  const WallSearchRegion& region = s_.wall_region_;
  std::vector<IdType> ids;
  if (!region.active) return ids;
  ids.reserve(region.rows.size());
  for (const std::uint32_t row : region.rows) ids.push_back(s_.faces_.condition_id[row]);
  return ids;
}

}  // namespace tessera::dem
