// The rows sorted in space (utilities/spatial_order.h) every
// sort_rows_frequency steps, with everything that refers to rows renumbered,
// and the spheres' nodes laid out in the rows' order.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/history_carry_over.h"
#include "applications/dem/utilities/spatial_order.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {

bool ExplicitSolverStrategy::MayLayOutNodes() const {
  // Only where nothing else of this strategy refers to nodes of that database
  // by position (walls or clusters sharing the spheres' root).
  return walls_ != &spheres_ && clusters_part_ != &spheres_;
}

void ExplicitSolverStrategy::SortRows() {
  ParticleStorage& p = particles_;
  // Cells of about one sphere diameter: a cell's spheres are its neighbours.
  double largest = 0.0;
  for (double r : p.radius) largest = std::max(largest, r);
  const double cell = 2.0 * largest + settings_.search_tolerance;
  if (!(cell > 0.0)) return;
  ReorderRows(SpatialOrder(p.position, cell, p.cluster));
}

void ExplicitSolverStrategy::ReorderRows(const std::vector<std::uint32_t>& order) {
  ParticleStorage& p = particles_;
  const std::size_t n = p.size();
  std::vector<std::uint32_t> new_index(n);
  for (std::size_t k = 0; k < n; ++k) new_index[order[k]] = static_cast<std::uint32_t>(k);
  // Shared columns are reordered with their nodes (LayOutNodesAsRows), the
  // others here.
  if (!MayLayOutNodes()) p.OwnColumns();
  p.Permute(order);
  glued_.Renumber(new_index);
  bonds_.Renumber(new_index);
  for (std::uint32_t& first : clusters_.first_row) first = new_index[first];
  LayOutNodesAsRows();

  // The old contact lists under the new numbering, sorted again. A pair keeps
  // first < second: where the two change places, the tangential spring (the
  // force on the first sphere) changes sign.
  PairContacts& pc = pairs_;
  std::vector<std::uint32_t>& a = scratch_first_;
  std::vector<std::uint32_t>& b = scratch_second_;
  a.resize(pc.first.size());
  b.resize(pc.first.size());
  for (std::size_t c = 0; c < a.size(); ++c) {
    a[c] = new_index[pc.first[c]];
    b[c] = new_index[pc.second[c]];
    if (a[c] > b[c]) {
      std::swap(a[c], b[c]);
      pc.history[c].tangential_force = -pc.history[c].tangential_force;
    }
  }
  ResortContacts(pc, a, b, scratch_cursor_);
  pc.first.swap(a);
  pc.second.swap(b);
  WallContacts& w = wall_contacts_;
  a.resize(w.particle.size());
  for (std::size_t c = 0; c < a.size(); ++c) a[c] = new_index[w.particle[c]];
  b = w.face;
  // The merge also reads the last contact point of a wall contact.
  ResortContacts(w, a, b, scratch_cursor_, w.point);
  w.particle.swap(a);
  w.face.swap(b);
}

void ExplicitSolverStrategy::LayOutNodesAsRows() {
  if (!MayLayOutNodes()) return;
  NodalDatabase& db = spheres_.Nodal();
  const std::size_t n = particles_.size();
  std::vector<IndexType> order;
  order.reserve(db.Size());
  std::vector<std::uint8_t> is_row_node(db.Size(), 0);
  for (std::size_t row = 0; row < n; ++row) {
    order.push_back(particles_.node[row]);
    is_row_node[particles_.node[row]] = 1;
  }
  for (IndexType i = 0; i < db.Size(); ++i)
    if (!is_row_node[i]) order.push_back(i);
  spheres_.ReorderNodes(order);
  for (std::size_t row = 0; row < n; ++row) particles_.node[row] = static_cast<IndexType>(row);
}

}  // namespace tessera::dem
