// The rows sorted in space (utilities/spatial_order.h) every
// sort_rows_frequency steps, with everything that refers to rows renumbered,
// and the spheres' nodes laid out in the rows' order; the same reordering
// may leave rows out (the distributed run's rows in key order at a search,
// with the departed ones removed in the same pass).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "applications/dem/particles/row_removal.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/history_carry_over.h"
#include "applications/dem/utilities/spatial_order.h"
#include "kernel/core/error.h"
#include "kernel/core/flags.h"
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
  std::vector<std::uint32_t> new_index(n, kRemovedRow);
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (order[k] >= n || new_index[order[k]] != kRemovedRow)
      TESSERA_ERROR("ReorderRows: row ", order[k], " at position ", k,
                    " of the order is not one of ", n, " rows or is listed twice");
    new_index[order[k]] = static_cast<std::uint32_t>(k);
  }
  const bool removes = order.size() < n;
  if (removes && !MayLayOutNodes()) {
    // The nodes keep their places: the removal, then the rest reordered.
    std::vector<std::uint8_t> keep(n, 0);
    std::vector<std::uint32_t> kept_index(n, 0);
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < n; ++i) {
      keep[i] = new_index[i] != kRemovedRow ? 1 : 0;
      kept_index[i] = next;
      next += keep[i];
    }
    std::vector<std::uint32_t> compacted(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) compacted[k] = kept_index[order[k]];
    RemoveParticles(keep);
    ReorderRows(compacted);
    return;
  }
  // The removed rows' elements leave the spheres' model part; their nodes go
  // in the same pass that lays the others out as the rows.
  std::vector<std::uint8_t> drop_node;
  if (removes) {
    drop_node.assign(spheres_.Nodal().Size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (new_index[i] != kRemovedRow) continue;
      spheres_.GetElement(p.element_id[i]).Set(TO_ERASE, true);
      drop_node[p.node[i]] = 1;
    }
    spheres_.RemoveElementsFlagged(TO_ERASE);
  }
  // Shared columns are reordered with their nodes (LayOutNodesAsRows), the
  // others here.
  if (!MayLayOutNodes()) p.OwnColumns();
  p.Permute(order);
  glued_.Renumber(new_index);
  bonds_.Renumber(new_index);
  // (A cluster's rows go all or none: a removed cluster's first row stays.)
  for (std::uint32_t& first : clusters_.first_row)
    if (new_index[first] != kRemovedRow) first = new_index[first];
  LayOutNodesAsRows(drop_node);

  // The old contact lists under the new numbering, without the removed rows'
  // contacts, sorted again. A pair keeps first < second: where the two change
  // places, the tangential spring (the force on the first sphere) changes sign.
  PairContacts& pc = pairs_;
  std::vector<std::uint32_t>& a = scratch_first_;
  std::vector<std::uint32_t>& b = scratch_second_;
  std::vector<std::uint32_t>& source = scratch_cursor_;
  // (A removal, or rows inserted with no contact yet, keeps the list sorted.)
  const auto sort_source = [&] {
    const auto less = [&](std::uint32_t x, std::uint32_t y) {
      return a[x] < a[y] || (a[x] == a[y] && b[x] < b[y]);
    };
    if (!std::is_sorted(source.begin(), source.end(), less))
      std::sort(source.begin(), source.end(), less);
  };
  a.resize(pc.first.size());
  b.resize(pc.first.size());
  source.clear();
  for (std::size_t c = 0; c < a.size(); ++c) {
    a[c] = new_index[pc.first[c]];
    b[c] = new_index[pc.second[c]];
    if (a[c] == kRemovedRow || b[c] == kRemovedRow) continue;
    if (a[c] > b[c]) {
      std::swap(a[c], b[c]);
      pc.history[c].tangential_force = -pc.history[c].tangential_force;
    }
    source.push_back(static_cast<std::uint32_t>(c));
  }
  sort_source();
  CarryHistories(pc, source, a, b);
  pc.first.swap(a);
  pc.second.swap(b);
  pc.Resize(pc.first.size());
  WallContacts& w = wall_contacts_;
  a.resize(w.particle.size());
  b = w.face;
  source.clear();
  for (std::size_t c = 0; c < a.size(); ++c) {
    a[c] = new_index[w.particle[c]];
    if (a[c] != kRemovedRow) source.push_back(static_cast<std::uint32_t>(c));
  }
  sort_source();
  // The merge also reads the last contact point of a wall contact.
  CarryHistories(w, source, a, b, w.point);
  w.particle.swap(a);
  w.face.swap(b);
  w.Resize(w.particle.size());
}

void ExplicitSolverStrategy::LayOutNodesAsRows(const std::vector<std::uint8_t>& drop) {
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
    if (!is_row_node[i] && (drop.empty() || !drop[i])) order.push_back(i);
  if (drop.empty())
    spheres_.ReorderNodes(order);
  else
    spheres_.KeepNodesInOrder(order);
  for (std::size_t row = 0; row < n; ++row) particles_.node[row] = static_cast<IndexType>(row);
}

}  // namespace tessera::dem
