// DistributedDem (see distributed_dem.h): decomposition, migration with
// histories, ghost refresh and the global measures of a distributed DEM run.
#include "applications/dem/parallel/distributed_dem.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "applications/dem/dem_variables.h"
#include "applications/dem/inlets/particle_inlet.h"
#include "applications/dem/parallel/distributed_rcb.h"
#include "applications/dem/parallel/periodic_layer.h"
#include "applications/dem/parallel/rank_speeds.h"
#include "applications/dem/parallel/spheres_piece.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/strategies/phase_timings.h"
#include "kernel/core/error.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/communicator.h"

namespace tessera::dem {
namespace {

// A row's columns in a migration message, in this order: the head, the
// state (StateDoubles), the initial coordinates.
constexpr std::size_t kRowHead = 7;  // key, element id, node id, material, radius, fixed, owner
// x v w disp ddisp drot angle force torque contact_force
constexpr std::size_t kRowBaseState = 30;

// The doubles of a row's state: the base columns, then the Gear scheme's
// acceleration and its two rates where the run has them (translation, and
// rotation with its Direct_Integration): a ghost predicts from its owner's.
std::size_t StateDoubles(const ParticleStorage& p) {
  return kRowBaseState + (p.has_gear ? 9 : 0) + (p.has_gear_angular ? 9 : 0);
}
std::size_t RowDoubles(const ParticleStorage& p) { return kRowHead + StateDoubles(p) + 3; }

// Sticky walls: a row's glued wall (ParticleStorage::glued: 0 or wall + 1)
// and its reference centre (zero where not glued), after the row's columns.
constexpr std::size_t kRowGlued = 4;
void PutGlued(std::vector<double>& out, const GluedParticles& glued, const ParticleStorage& p,
              std::size_t i) {
  out.push_back(static_cast<double>(p.glued[i]));
  if (p.glued[i] == 0) {
    out.insert(out.end(), {0.0, 0.0, 0.0});
    return;
  }
  const auto it = std::lower_bound(glued.row.begin(), glued.row.end(), i);
  if (it == glued.row.end() || *it != i)
    TESSERA_ERROR("DistributedDem: row ", i, " (element ", p.element_id[i],
                  ") is glued to a sticky wall but not in the glued list");
  const Array3& x = glued.reference[static_cast<std::size_t>(it - glued.row.begin())];
  out.insert(out.end(), {x[0], x[1], x[2]});
}
// An inserted row (the last so far) glued as its sender had it.
void TakeGlued(const double* in, GluedParticles& glued, ParticleStorage& p, std::size_t row) {
  const auto wall = static_cast<std::uint32_t>(in[0]);
  p.glued[row] = wall;
  if (wall == 0) return;
  if (wall > glued.walls.size())
    TESSERA_ERROR("DistributedDem: element ", p.element_id[row], " arrived glued to sticky wall ",
                  wall - 1, " of ", glued.walls.size(), " (the walls must be alike on every rank)");
  glued.row.push_back(static_cast<std::uint32_t>(row));
  glued.reference.push_back(Array3{in[1], in[2], in[3]});
}

void Put(std::vector<double>& out, const Array3& a) { out.insert(out.end(), {a[0], a[1], a[2]}); }
Array3 Take(const double*& in) {
  const Array3 a{in[0], in[1], in[2]};
  in += 3;
  return a;
}

// Three doubles from `out` on (element by element: a std::copy of three
// doubles is a call to memmove, most of a ghost refresh's packing).
double* Put3(double* out, const Array3& a) {
  out[0] = a[0], out[1] = a[1], out[2] = a[2];
  return out + 3;
}

// The state columns of row i (what a ghost refresh carries) from `out` on.
double* PutState(double* out, const ParticleStorage& p, std::size_t i) {
  out = Put3(out, p.position[i]), out = Put3(out, p.velocity[i]);
  out = Put3(out, p.angular_velocity[i]), out = Put3(out, p.displacement[i]);
  out = Put3(out, p.delta_displacement[i]), out = Put3(out, p.delta_rotation[i]);
  out = Put3(out, p.rotation_angle[i]), out = Put3(out, p.force[i]);
  out = Put3(out, p.torque[i]), out = Put3(out, p.contact_force[i]);
  if (p.has_gear)
    for (const auto& column : p.gear) out = Put3(out, column[i]);
  if (p.has_gear_angular)
    for (const auto& column : p.gear_angular) out = Put3(out, column[i]);
  return out;
}
void PutState(std::vector<double>& out, const ParticleStorage& p, std::size_t i) {
  const std::size_t width = StateDoubles(p);
  out.resize(out.size() + width);
  PutState(out.data() + out.size() - width, p, i);
}
void TakeState(const double*& in, ParticleStorage& p, std::size_t i) {
  p.position[i] = Take(in), p.velocity[i] = Take(in), p.angular_velocity[i] = Take(in);
  p.displacement[i] = Take(in), p.delta_displacement[i] = Take(in);
  p.delta_rotation[i] = Take(in), p.rotation_angle[i] = Take(in), p.force[i] = Take(in);
  p.torque[i] = Take(in), p.contact_force[i] = Take(in);
  if (p.has_gear)
    for (auto& column : p.gear) column[i] = Take(in);
  if (p.has_gear_angular)
    for (auto& column : p.gear_angular) column[i] = Take(in);
}

}  // namespace

std::vector<int> DistributedDem::OtherRanks() const {
  std::vector<int> others;
  for (int r = 0; r < size_; ++r)
    if (r != rank_) others.push_back(r);
  return others;
}

void DistributedDem::FindNeighbourBoxes() {
  // A row sent at a search lies within a layer of its sender's box; the
  // boxes it goes to then lie within two layers (a cluster member's bonds,
  // sent from the member's centre, within 2 layers + D < 2.5 layers, since
  // the layer holds 2 D). Three layers leave room for rounding. Each pair
  // is tested once, (lower rank, higher rank), on every rank alike, so the
  // ranks' lists name each other.
  const double reach = 3.0 * layer_;
  neighbour_boxes_.clear();
  all_near_ = true;
  for (int a = 0; a < size_; ++a)
    for (int b = a + 1; b < size_; ++b) {
      if (!BoxesWithinReach(boxes_[a], boxes_[b], reach, s_.periodic_)) {
        all_near_ = false;
        continue;
      }
      if (a == rank_) neighbour_boxes_.push_back(b);
      if (b == rank_) neighbour_boxes_.push_back(a);
    }
  std::sort(neighbour_boxes_.begin(), neighbour_boxes_.end());
}

void DistributedDem::ChoosePartners(bool escaped) {
  const bool every_rank =
      all_near_ || boxes_moved_ || comm_->MaxAll(static_cast<std::int64_t>(escaped ? 1 : 0)) != 0;
  boxes_moved_ = false;
  partners_ = every_rank ? OtherRanks() : neighbour_boxes_;
  if (all_near_) return;
  ++(every_rank ? every_rank_migrations_ : neighbour_migrations_);
}

std::vector<std::vector<double>> DistributedDem::ToPartners(
    std::vector<std::vector<double>>& per_rank, const char* what) const {
  std::vector<std::vector<double>> out;
  out.reserve(partners_.size());
  std::size_t k = 0;
  for (int r = 0; r < size_; ++r) {
    if (k < partners_.size() && partners_[k] == r) {
      out.push_back(std::move(per_rank[r]));
      ++k;
    } else if (!per_rank[r].empty()) {
      TESSERA_ERROR("DistributedDem: rank ", rank_, " has ", what, " for rank ", r,
                    ", whose box is not within reach of its own (internal error)");
    }
  }
  return out;
}

DistributedDem::DistributedDem(ExplicitSolverStrategy& strategy,
                               std::shared_ptr<const Communicator> communicator,
                               DistributedDemSettings settings)
    : s_(strategy), comm_(std::move(communicator)), settings_(settings) {
  if (!comm_) TESSERA_ERROR("DistributedDem: no communicator");
  if (settings_.rebalance_every < 0)
    TESSERA_ERROR("mpi_settings.rebalance_every must be >= 0 (0: never), got ",
                  settings_.rebalance_every);
  if (!(settings_.imbalance_threshold >= 1.0))
    TESSERA_ERROR("mpi_settings.imbalance_threshold must be >= 1 (max / mean owned spheres), got ",
                  settings_.imbalance_threshold);
  if (settings_.balance != "count" && settings_.balance != "time")
    TESSERA_ERROR(
        "mpi_settings.balance must be \"count\" or \"time\" with the explicit "
        "strategies (\"contacts\" balances moreau_jean_strategy's sweeps), got \"",
        settings_.balance, "\"");
  rank_ = comm_->Rank();
  size_ = comm_->Size();
}

DistributedDem::~DistributedDem() {
  // The strategy may outlive this object: it counts every row again.
  if (s_.counted_rows_ == &row_owned_) s_.counted_rows_ = nullptr;
  s_.counts_free_walls_ = true;
  s_.clusters_on_any_rank_ = false;
}

std::int64_t DistributedDem::KeyOfRow(std::size_t row) const { return row_key_[row]; }

bool DistributedDem::OwnedRow(std::size_t row) const { return row_owned_[row] != 0; }

std::int64_t DistributedDem::RowOfKey(std::int64_t key) const {
  const auto it = std::lower_bound(row_key_.begin(), row_key_.end(), key);
  return it != row_key_.end() && *it == key ? it - row_key_.begin() : -1;
}

void DistributedDem::FollowRows() {
  const ParticleStorage& p = s_.particles_;
  const std::size_t n = p.size();
  // The strategy only removes rows, keeping the order of the others: the
  // rows left are a subsequence of the arrays' elements.
  if (row_element_.size() != n ||
      !std::equal(row_element_.begin(), row_element_.end(), p.element_id.begin())) {
    std::size_t out = 0;
    for (std::size_t j = 0; j < row_element_.size() && out < n; ++j) {
      if (row_element_[j] != p.element_id[out]) continue;
      row_key_[out] = row_key_[j], row_owner_[out] = row_owner_[j];
      row_element_[out] = row_element_[j];
      ++out;
    }
    if (out != n)
      TESSERA_ERROR("DistributedDem: the strategy's rows changed other than by removal (row ", out,
                    " of ", n, ", element ", p.element_id[out],
                    "); particles cannot be added to a distributed run except by its inlets");
    row_key_.resize(n), row_owner_.resize(n), row_element_.resize(n);
  }
  row_owned_.resize(n);
  for (std::size_t i = 0; i < n; ++i) row_owned_[i] = row_owner_[i] == rank_ ? 1 : 0;
}

void DistributedDem::GhostTargets(const Array3& x, int owner, std::vector<int>& targets) const {
  targets.clear();
  for (int r = 0; r < size_; ++r)
    if (r != owner && WithinPeriodicLayer(boxes_[r], x, layer_, s_.periodic_)) targets.push_back(r);
}

void DistributedDem::Start(bool restored) {
  if (!s_.initialized_) TESSERA_ERROR("DistributedDem::Start: initialise the strategy first");
  const DemSettings& st = s_.settings_;
  const auto refuse = [](const char* what) {
    TESSERA_ERROR("\"parallel_type\": \"MPI\": ", what,
                  " does not run distributed yet (the DEM explicit strategy does without it)");
  };
  if (!s_.registered_materials_.empty() && inlets_ == nullptr)
    refuse("particle inlets not handed to DistributedDem::AdoptInlets");

  // The serial run's order is the key; spatial sorting would change it.
  s_.settings_.tuning.sort_rows_frequency = 0;
  ParticleStorage& p = s_.Particles();
  const std::size_t n = p.size();
  double largest = 0.0;
  for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, p.radius[i]);
  // From pieces: the largest sphere of the file (every rank's rows are a piece).
  if (piece_ != nullptr) largest = std::max(largest, piece_->largest_radius);
  // Spheres an inlet makes may be bigger than any at start.
  if (inlets_ != nullptr) largest = std::max(largest, inlets_->LargestRadius());
  // Every rank holds every sphere here (from pieces: knows the file's
  // largest), so the reach is the same everywhere;
  // 5 % on top covers rounding in the search's cell tests. Spheres bigger
  // than any at start or of the inlets never arrive.
  // A cluster member lies up to D from its cluster's centre, by which it is
  // owned and sent: 2 D more (see the header).
  // (From pieces the file's clusters: a rank may hold none of them.)
  clusters_in_run_ = piece_ != nullptr ? piece_->cluster_members > 0 : !s_.clusters_.empty();
  s_.clusters_on_any_rank_ = clusters_in_run_;
  const double reach = piece_ != nullptr ? piece_->cluster_reach : ClusterReach();
  layer_ = 1.05 * (2.0 * largest + st.search_tolerance + 2.0 * reach);
  // A bond may be longer than a contact reach (BOND_RANGE_BETA, or gaps up
  // to twice the search tolerance): the layer holds every bond's partner.
  // From pieces each rank made the bonds of its piece: every bond is on the
  // rank that owns its first sphere, so the longest is the ranks' longest.
  double longest = 0.0;
  for (std::size_t b = 0; b < s_.bonds_.size(); ++b)
    longest = std::max(longest, Norm(s_.Separation(s_.bonds_.first[b], s_.bonds_.second[b])));
  bool bonded = !s_.bonds_.empty();
  if (piece_ != nullptr) {
    longest = comm_->MaxAll(longest);
    bonded = comm_->MaxAll(static_cast<std::int64_t>(bonded)) != 0;
  }
  layer_ = std::max(layer_, 1.05 * longest);
  // BrokenBonds "kratos" pushes within the rest length and keeps a broken
  // bond's shear force within a gap of twice the tolerance: a parked bond
  // lies beyond both even after approaching by one tolerance until the
  // search that brings it back (distributed_bonds.cpp).
  if (bonded && s_.bonds_.broken_bonds == BrokenBonds::kKratos)
    layer_ = std::max({layer_, 1.05 * (2.0 * largest + 3.0 * st.search_tolerance),
                       1.05 * (longest + st.search_tolerance)});
  next_key_ = static_cast<std::int64_t>(n);
  std::vector<std::int64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::int64_t>(i);
  if (piece_ != nullptr) {
    // The piece's rows are in file order, the serial run's (its clusters'
    // members after the file's spheres): their keys ascend.
    next_key_ = piece_->total_spheres + piece_->cluster_members;
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = piece_->KeyOf(p.element_id[i]);
      if (i > 0 && keys[i] <= keys[i - 1])
        TESSERA_ERROR("the distributed start: row ", i, " (element ", p.element_id[i], ") has key ",
                      keys[i], " after ", keys[i - 1]);
    }
    // A kept sphere's bonds were made with all its partners, and it was
    // deleted or not as embedded by all its pairs (spheres_piece.h).
    const double embedded = st.remove_embedded ? 2.0 * largest : 0.0;
    if (layer_ + longest + embedded > piece_->layer)
      TESSERA_ERROR("the distributed start: the ghost layer ", layer_, ", the longest bond ",
                    longest, " and the reach of embedded spheres ", embedded,
                    " add up to more than the pieces read (", piece_->layer, ")");
  } else {
    // Every bond is here now (the keys are the rows).
    for (std::size_t b = 0; b < s_.bonds_.size(); ++b)
      ++bond_count_[s_.bonds_.first[b]], ++bond_count_[s_.bonds_.second[b]];
  }
  boxes_ = piece_ != nullptr
               ? piece_->boxes
               : RecursiveCoordinateBisection(
                     std::vector<Array3>(p.position.begin(), p.position.end()), keys, size_);
  FindNeighbourBoxes();
  std::vector<std::uint8_t> keep(n, 0);
  row_key_ = keys;
  row_owner_.resize(n);
  row_element_.assign(p.element_id.begin(), p.element_id.end());
  for (std::size_t i = 0; i < n; ++i) {
    const Array3 site = Site(i);
    row_owner_[i] = RcbOwner(boxes_, site);
    keep[i] =
        row_owner_[i] == rank_ || WithinPeriodicLayer(boxes_[rank_], site, layer_, s_.periodic_);
  }
  if (piece_ != nullptr && bonded) GatherBondCounts();
  // Restored: the ranks other than its owner that hold each row as a ghost
  // (the layer's, and the owners of its pair partners), sorted; every rank
  // decides them alike from the whole state, so the lists match.
  std::vector<std::vector<int>> holders;
  const std::vector<int> owners = row_owner_;
  if (restored) {
    holders.assign(n, {});
    for (std::size_t i = 0; i < n; ++i) GhostTargets(Site(i), owners[i], holders[i]);
    const auto& pairs = s_.pairs_;
    for (std::size_t c = 0; c < pairs.first.size(); ++c) {
      const std::uint32_t a = pairs.first[c], b = pairs.second[c];
      if (owners[a] == owners[b]) continue;
      holders[a].push_back(owners[b]), holders[b].push_back(owners[a]);
    }
    // A bond's spheres likewise (a broken bond's may lie beyond the layer).
    const ContinuumBonds& bonds = s_.bonds_;
    for (std::size_t c = 0; c < bonds.size(); ++c) {
      const std::uint32_t a = bonds.first[c], b = bonds.second[c];
      if (owners[a] == owners[b]) continue;
      holders[a].push_back(owners[b]), holders[b].push_back(owners[a]);
    }
    // A cluster's members go together (RemoveRows): each holds the union.
    const RigidClusters& clusters = s_.clusters_;
    for (std::size_t k = 0; k < clusters.size(); ++k) {
      const std::uint32_t first = clusters.first_row[k], count = clusters.row_count[k];
      for (std::uint32_t m = 1; m < count; ++m)
        holders[first].insert(holders[first].end(), holders[first + m].begin(),
                              holders[first + m].end());
      std::sort(holders[first].begin(), holders[first].end());
      holders[first].erase(std::unique(holders[first].begin(), holders[first].end()),
                           holders[first].end());
      for (std::uint32_t m = 1; m < count; ++m) holders[first + m] = holders[first];
    }
    // The bonds' power of the last force evaluation (dissipated at the next
    // step) is the merged total: counted once, on rank 0.
    if (rank_ != 0) s_.bond_power_ = BondPower{};
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<int>& h = holders[i];
      std::sort(h.begin(), h.end());
      h.erase(std::unique(h.begin(), h.end()), h.end());
      keep[i] = owners[i] == rank_ || std::binary_search(h.begin(), h.end(), rank_);
    }
  }
  // The adaptive search measures from the positions of the last search:
  // the kept rows keep theirs (RemoveParticles leaves that column alone).
  std::vector<Array3>& searched = s_.search_position_;
  if (searched.size() == n) {
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (keep[i]) searched[out++] = searched[i];
    searched.resize(out);
  }
  // A restored state's global damping powers are the saved ones (a fresh
  // start has none yet).
  std::vector<double>& damping = s_.global_damping_power_;
  if (restored && damping.size() == n) {
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (keep[i]) damping[out++] = damping[i];
    damping.resize(out);
  }
  RemoveRows(keep);
  const std::size_t kept = s_.particles_.size();
  IndexContacts(s_);
  if (!restored) s_.global_damping_power_.assign(st.global_damping > 0.0 ? kept : 0, 0.0);
  s_.ShareRowsWithNodes();
  FollowRows();
  // Energies: each rank counts its owned rows and their contacts (a pair or
  // a bond by its first sphere, the smaller key). What was dissipated before Start,
  // the same on every rank (each held every sphere), counts on rank 0.
  s_.counted_rows_ = &row_owned_;
  if (rank_ != 0) s_.dissipated_ = EnergyTotals{};
  if (!bond_count_.empty()) CheckOwnedBonds();
  if (!restored) {
    BuildGhostLists();
  } else {
    // The kept rows in order: an owned row goes to its holders, a ghost
    // comes from its owner; both sides list them in key order.
    std::vector<std::vector<std::uint32_t>> send(size_), receive(size_);
    std::uint32_t row = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!keep[i]) continue;
      if (owners[i] == rank_)
        for (int r : holders[i]) send[r].push_back(row);
      else
        receive[owners[i]].push_back(row);
      ++row;
    }
    KeepGhostLists(send, receive);
  }
  last_balance_step_ = s_.step_;
  compute_mark_ = ComputeSeconds();
  SearchHooks hooks;
  hooks.vote = [this](bool local) {
    const ScopedPhase phase(timings_.vote);
    return comm_->MaxAll(static_cast<std::int64_t>(local ? 1 : 0)) != 0;
  };
  // (Called inside the pair pass, whose phase it must not count as compute.)
  hooks.any_rank = [this](bool local) {
    const ScopedPhase phase(timings_.vote), wait(waits_in_phases_);
    return comm_->MaxAll(static_cast<std::int64_t>(local ? 1 : 0)) != 0;
  };
  hooks.before_search = [this] {
    const ScopedPhase phase(timings_.migrate);
    if (bond_count_.empty() && !clusters_in_run_) {
      Migrate();
      return UpdateWallRegion();  // the boxes of this search
    }
    // The boxes of this search first (Migrate's own call then does nothing).
    MaybeRebalance();
    std::vector<std::vector<double>> bonds, clusters;
    if (!bond_count_.empty()) bonds = PackBonds();
    if (clusters_in_run_) clusters = PackClusters();
    Migrate();
    if (!bond_count_.empty()) InstallBonds(std::move(bonds));
    if (clusters_in_run_) InstallClusters(std::move(clusters));
    UpdateWallRegion();
  };
  hooks.after_search = [this] {
    const ScopedPhase phase(timings_.after_search);
    FollowRows();
    InstallArrivedHistories();
    BuildGhostLists();
    if (clusters_in_run_) VoteClusters();
  };
  // Free walls: the loads of every rank's spheres (free_wall_loads.cpp), the
  // energies of the walls (alike everywhere) on rank 0.
  if (!s_.free_walls_.empty()) hooks.free_wall_loads = [this] { ReduceFreeWallLoads(); };
  s_.counts_free_walls_ = rank_ == 0;
  s_.SetSearchHooks(std::move(hooks));
  if (inlets_ != nullptr) {
    // Spheres of the inlets' materials may arrive by migration on any rank:
    // their Properties must be those of the spheres' model part everywhere.
    for (const Properties::Pointer& material : inlets_->Materials())
      if (!s_.spheres_.HasProperties(material->Id())) s_.spheres_.AddProperties(material);
    InletHooks inlet_hooks;
    inlet_hooks.gather = [this](const Array3& low, const Array3& high, double largest_new,
                                std::vector<Array3>& centres, std::vector<double>& radii) {
      return GatherNearInlets(low, high, largest_new, centres, radii);
    };
    inlet_hooks.insert = [this](const std::vector<NewParticle>& fresh) { InsertInjected(fresh); };
    inlets_->SetHooks(std::move(inlet_hooks));
  }
  if (piece_ != nullptr) {
    // A ghost near the piece's edge missed partners at the first force
    // evaluation, and each rank summed its own spheres' free wall loads:
    // the ghosts from their owners, the loads over every rank.
    RefreshGhosts();
    if (!s_.free_walls_.empty()) ReduceFreeWallLoads();
  }
}

void DistributedDem::StartFromPiece(const SpheresPiece& piece) {
  piece_ = &piece;
  try {
    Start(false);
  } catch (...) {
    piece_ = nullptr;
    throw;
  }
  piece_ = nullptr;
}

void DistributedDem::IndexContacts(ExplicitSolverStrategy& s) {
  // RemoveParticles leaves the lists' per-row indexes to the search that
  // follows it elsewhere (bounding box); here the steps go on with the lists.
  const std::size_t rows = s.particles_.size();
  s.pairs_.Index(rows, s.settings_.tuning.force_block_rows);
  auto& walls = s.wall_contacts_;
  walls.particle_start.assign(rows + 1, 0);
  for (std::uint32_t row : walls.particle) ++walls.particle_start[row + 1];
  for (std::size_t i = 0; i < rows; ++i) walls.particle_start[i + 1] += walls.particle_start[i];
  // Merged bonds come without their index (a fresh start's are indexed).
  if (s.bonds_.constant_index.size() != s.bonds_.size()) s.bonds_.Index(rows);
}

void DistributedDem::AdoptInlets(ParticleInlets& inlets) {
  if (!boxes_.empty()) TESSERA_ERROR("DistributedDem::AdoptInlets: call it before Start()");
  inlets_ = &inlets;
}

double DistributedDem::GatherNearInlets(const Array3& low, const Array3& high, double largest_new,
                                        std::vector<Array3>& centres,
                                        std::vector<double>& radii) const {
  const ParticleStorage& p = s_.particles_;
  double largest_old = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (OwnedRow(i)) largest_old = std::max(largest_old, p.radius[i]);
  largest_old = comm_->MaxAll(largest_old);
  const double reach = largest_new + std::max(largest_old, largest_new);
  std::vector<double> mine;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!OwnedRow(i)) continue;
    const Array3& x = p.position[i];
    bool near = true;
    for (int k = 0; k < 3; ++k) near = near && x[k] >= low[k] - reach && x[k] <= high[k] + reach;
    if (!near) continue;
    Put(mine, x);
    mine.push_back(p.radius[i]);
  }
  const std::vector<std::vector<double>> parts = comm_->Gather(mine, 0);
  std::vector<double> all;
  for (const std::vector<double>& part : parts) all.insert(all.end(), part.begin(), part.end());
  comm_->Broadcast(all, 0);
  centres.clear(), radii.clear();
  for (std::size_t k = 0; k + 4 <= all.size(); k += 4) {
    centres.push_back(Array3{all[k], all[k + 1], all[k + 2]});
    radii.push_back(all[k + 3]);
  }
  return reach;
}

void DistributedDem::InsertInjected(const std::vector<NewParticle>& fresh) {
  FollowRows();
  std::vector<NewParticle> kept;
  for (const NewParticle& particle : fresh) {
    const std::int64_t key = next_key_++;  // on every rank, kept or not
    // Decided where the row will be: InsertParticles wraps it into a periodic box.
    const Array3 x =
        s_.settings_.periodic ? s_.periodic_.Wrap(particle.position) : particle.position;
    const int owner = RcbOwner(boxes_, x);
    if (owner != rank_ && !WithinPeriodicLayer(boxes_[rank_], x, layer_, s_.periodic_)) continue;
    // Appended, the largest keys yet: the rows stay in key order.
    row_key_.push_back(key), row_owner_.push_back(owner);
    row_element_.push_back(particle.element_id);
    kept.push_back(particle);
  }
  // Every rank inserts, none kept or not: the insertion resets what the
  // serial run's does for all rows (the increments' kind).
  const std::size_t first = s_.particles_.size();
  s_.InsertParticles(kept);
  FollowRows();
  AddRowsToGhostLists(first);
}

void DistributedDem::AddRowsToGhostLists(std::size_t first) {
  // The new rows come last (their keys are the largest): appended to the
  // lists they stay in ascending key order. Both sides decide by the same
  // boxes and position.
  const ParticleStorage& p = s_.particles_;
  std::vector<std::vector<std::uint32_t>> send(size_), receive(size_);
  for (std::size_t k = 0; k < neighbours_.size(); ++k) {
    send[neighbours_[k]] = std::move(send_rows_[k]);
    receive[neighbours_[k]] = std::move(receive_rows_[k]);
  }
  std::vector<int> targets;
  std::vector<std::uint8_t> interior;
  MarkInterior(first, interior);
  for (std::size_t i = first; i < p.size(); ++i) {
    if (OwnedRow(i)) {
      // As in Migrate: a layer inside this rank's box, no other rank's ghost.
      if (interior[i - first]) continue;
      GhostTargets(Site(i), rank_, targets);
      for (int r : targets) send[r].push_back(static_cast<std::uint32_t>(i));
    } else {
      receive[row_owner_[i]].push_back(static_cast<std::uint32_t>(i));
    }
  }
  KeepGhostLists(send, receive);
}

void DistributedDem::MarkInterior(std::size_t first, std::vector<std::uint8_t>& interior) const {
  const ParticleStorage& p = s_.particles_;
  const std::size_t n = p.size();
  interior.assign(n > first ? n - first : 0, 0);
  const RcbBox& own = boxes_[static_cast<std::size_t>(rank_)];
  if (!s_.clusters_.empty() || s_.periodic_.active) {
    for (std::size_t i = first; i < n; ++i)
      interior[i - first] = OwnedRow(i) && DeepInsidePeriodic(own, Site(i), layer_, s_.periodic_);
    return;
  }
  // Without clusters (a row's site is its centre) or a periodic box, the
  // test of DeepInsidePeriodic (WithinLayer(own, x, -layer), the same
  // roundings: low - (-layer) is low + layer) inline, every row of a
  // rank at each search.
  const Array3 low{own.low[0] + layer_, own.low[1] + layer_, own.low[2] + layer_};
  const Array3 high{own.high[0] - layer_, own.high[1] - layer_, own.high[2] - layer_};
  const Array3* x = p.position.data();
  for (std::size_t i = first; i < n; ++i) {
    const Array3& c = x[i];
    const bool inside = !(c[0] < low[0] || c[0] >= high[0]) &&
                        !(c[1] < low[1] || c[1] >= high[1]) && !(c[2] < low[2] || c[2] >= high[2]);
    interior[i - first] = row_owned_[i] != 0 && inside;
  }
}

void DistributedDem::KeepGhostLists(std::vector<std::vector<std::uint32_t>>& send,
                                    std::vector<std::vector<std::uint32_t>>& receive) {
  // The ranks with rows to send or receive, in ascending rank order.
  neighbours_.clear(), send_rows_.clear(), receive_rows_.clear();
  for (int r = 0; r < size_; ++r) {
    if (r == rank_ || (send[r].empty() && receive[r].empty())) continue;
    neighbours_.push_back(r);
    send_rows_.push_back(std::move(send[r]));
    receive_rows_.push_back(std::move(receive[r]));
  }
}

void DistributedDem::BuildGhostLists() {
  // From empty lists, every row is a new row.
  neighbours_.clear(), send_rows_.clear(), receive_rows_.clear();
  AddRowsToGhostLists(0);
}

void DistributedDem::RefreshGhosts() {
  // Neighbour lists name each other: r sends here what it owns in this
  // rank's layer (by the same boxes and positions), this rank receives it, so
  // both sides know every length. The buffers live between steps.
  const ScopedPhase phase(timings_.ghost_refresh);
  ParticleStorage& p = s_.Particles();
  ghost_out_.resize(neighbours_.size());
  ghost_in_.resize(neighbours_.size());
  for (std::size_t k = 0; k < neighbours_.size(); ++k) {
    ghost_out_[k].resize(send_rows_[k].size() * StateDoubles(p));
    double* out = ghost_out_[k].data();
    for (std::uint32_t row : send_rows_[k]) out = PutState(out, p, row);
    ghost_in_[k].resize(receive_rows_[k].size() * StateDoubles(p));
    ghost_doubles_ += static_cast<std::int64_t>(ghost_out_[k].size());
  }
  comm_->ExchangeKnownSizes(neighbours_, ghost_out_, ghost_in_);
  for (std::size_t k = 0; k < neighbours_.size(); ++k) {
    const double* cursor = ghost_in_[k].data();
    for (std::uint32_t row : receive_rows_[k]) TakeState(cursor, p, row);
  }
  if (clusters_in_run_) RefreshGhostClusters();
  ++refreshes_;
}

void DistributedDem::Bisect(const std::vector<double>& weights) {
  // The owned centres stay on their ranks (distributed_rcb.h): the boxes of
  // a bisection of all of them, as at Start, with no rank gathering them.
  const ParticleStorage& p = s_.particles_;
  std::vector<Array3> owned;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (OwnedRow(i)) owned.push_back(p.position[i]);
  boxes_ = DistributedRecursiveCoordinateBisection(owned, size_, weights, *comm_);
  FindNeighbourBoxes();
  boxes_moved_ = true;  // rows may go to any rank at this search
  ++rebalances_;
}

void DistributedDem::MaybeRebalance() {
  if (settings_.rebalance_every == 0 || s_.step_ - last_balance_step_ < settings_.rebalance_every)
    return;
  last_balance_step_ = s_.step_;
  if (settings_.balance == "time") return RebalanceByTime();
  const std::vector<std::int64_t> counts =
      comm_->AllGather(static_cast<std::int64_t>(NumberOfOwned()));
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  const std::int64_t most = *std::max_element(counts.begin(), counts.end());
  if (total == 0) return;
  const double mean = static_cast<double>(total) / size_;
  if (static_cast<double>(most) > settings_.imbalance_threshold * mean) Bisect();
}

double DistributedDem::ComputeSeconds() const {
  double seconds = 0.0;
  for (const auto& term : kPhaseTerms) seconds += s_.timings_.*term.second;
  return seconds - waits_in_phases_;
}

void DistributedDem::RebalanceByTime() {
  const double now = ComputeSeconds();
  // (Negative after the strategy's ResetTimings: that interval is not measured.)
  const double spent = std::max(0.0, now - compute_mark_);
  compute_mark_ = now;
  const std::vector<double> times = comm_->AllGather(spent);
  const std::vector<std::int64_t> owned =
      comm_->AllGather(static_cast<std::int64_t>(NumberOfOwned()));
  const std::vector<std::int64_t> ghosts =
      comm_->AllGather(static_cast<std::int64_t>(NumberOfGhosts()));
  // A rank's speed: the rows it works on (owned and ghosts: the search and
  // the contacts run over both) per compute second; one that owns nothing
  // is not measured.
  std::vector<double> work(size_);
  for (int r = 0; r < size_; ++r)
    work[r] = owned[r] == 0 ? 0.0 : static_cast<double>(owned[r] + ghosts[r]);
  UpdateRankSpeeds(work, times, speed_);
  if (!SecondsImbalanced(times, settings_.imbalance_threshold)) return;
  // A rank not measured yet (it owned nothing) counts at the mean speed.
  const std::vector<double> speed = SpeedsWithUnmeasuredAtMean(speed_);
  if (speed.empty()) return;
  const double speed_sum = std::accumulate(speed.begin(), speed.end(), 0.0);
  // Equal times T = (n_r + g_r) / s_r with the ghosts g_r as they are (a cut
  // moved along its axis keeps its layer): n_r = T s_r - g_r, T from the sum
  // of the n_r. Shares in proportion to the speeds alone would overshoot
  // where a slow rank's ghosts are a large part of its rows. Each rank keeps
  // at least 5 % of an equal share (a positive weight).
  const double n =
      static_cast<double>(std::accumulate(owned.begin(), owned.end(), std::int64_t{0}));
  const double g =
      static_cast<double>(std::accumulate(ghosts.begin(), ghosts.end(), std::int64_t{0}));
  if (n == 0.0) return;  // no sphere yet (an inlet's run): nothing to share
  const double t = (n + g) / speed_sum;
  std::vector<double> weights(size_);
  for (int r = 0; r < size_; ++r)
    weights[r] = std::max(t * speed[r] - static_cast<double>(ghosts[r]), 0.05 * n / size_);
  Bisect(weights);
}

void DistributedDem::Migrate() {
  MaybeRebalance();
  FollowRows();
  ParticleStorage& p = s_.Particles();
  const std::size_t n = p.size();
  const auto& pairs = s_.pairs_;
  const auto& walls = s_.wall_contacts_;
  const bool pair_extra = pairs.keeps_extra_history, wall_extra = walls.keeps_extra_history;
  const std::size_t pair_width = 8 + (pair_extra ? kExtraHistoryDoubles : 0);
  const std::size_t wall_width = 12 + (wall_extra ? kExtraHistoryDoubles : 0);
  // With sticky walls a row carries its wall (ParticleStorage::glued) and
  // its reference centre (GluedParticles) as well.
  const bool sticky = !s_.glued_.walls.empty();
  const std::size_t row_doubles = RowDoubles(p) + (sticky ? kRowGlued : 0);
  const std::vector<std::uint32_t>& wall_start = walls.particle_start;  // sorted by particle

  // Messages to every other rank: [rows, pair histories, wall histories].
  std::vector<std::vector<double>> rows_out(size_), pairs_out(size_), walls_out(size_);
  // Per row: whether it stays here, its owner after this search, and for an
  // owned sphere that changes owner, the new owner (-1: none).
  std::vector<std::uint8_t> keep(n, 0);
  std::vector<int> next_owner(n, -1), leaves_to(n, -1);
  bool any_leaves = false;
  std::vector<int> holders;
  // A sphere at least one layer inside this rank's box stays here and is no
  // other rank's ghost: the boxes tile space, so every other box lies beyond
  // that layer (the comparisons round the same way as WithinLayer's; in a
  // periodic box at every image, periodic_layer.h).
  std::vector<std::uint8_t> interior;
  MarkInterior(0, interior);
  // Whether a sphere to send lies beyond a layer of this box (ChoosePartners).
  const RcbBox& own = boxes_[static_cast<std::size_t>(rank_)];
  bool escaped = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!OwnedRow(i)) continue;
    if (interior[i]) {
      keep[i] = 1;
      next_owner[i] = rank_;
      continue;
    }
    const Array3 site = Site(i);  // a cluster member's: its cluster's centre
    escaped = escaped || !WithinPeriodicLayer(own, site, layer_, s_.periodic_);
    const int owner = RcbOwner(boxes_, site);
    GhostTargets(site, owner, holders);
    holders.push_back(owner);
    const std::int64_t key = KeyOfRow(i);
    for (int r : holders) {
      if (r == rank_) {
        keep[i] = 1;
        next_owner[i] = owner;
        continue;
      }
      std::vector<double>& out = rows_out[r];
      const Node node(&s_.spheres_.Nodal(), p.node[i]);
      out.insert(out.end(),
                 {static_cast<double>(key), static_cast<double>(p.element_id[i]),
                  static_cast<double>(node.Id()), static_cast<double>(p.material[i]), p.radius[i],
                  static_cast<double>(p.fixed[i]), static_cast<double>(owner)});
      PutState(out, p, i);
      Put(out, node.InitialCoordinates());
      if (sticky) PutGlued(out, s_.glued_, p, i);
      if (r != owner) continue;
      // The new owner gets the histories of every contact of the sphere
      // (its pair contacts below, in one pass over the pairs).
      leaves_to[i] = r;
      any_leaves = true;
      for (std::uint32_t c = wall_start[i]; c < wall_start[i + 1]; ++c) {
        std::vector<double>& h = walls_out[r];
        h.insert(h.end(), {static_cast<double>(key), static_cast<double>(walls.face[c])});
        Put(h, walls.tangential_force[c]);
        h.insert(h.end(),
                 {walls.tangential_stiffness[c], walls.normal_elastic_force[c],
                  static_cast<double>(walls.sliding[c]), static_cast<double>(walls.active[c])});
        Put(h, walls.point[c]);
        if (wall_extra)
          h.insert(h.end(), walls.extra_history[c].begin(), walls.extra_history[c].end());
      }
    }
  }
  const auto send_pair = [&](std::size_t c, int r) {
    std::vector<double>& h = pairs_out[r];
    const auto& record = pairs.history[c];
    h.insert(h.end(), {static_cast<double>(KeyOfRow(pairs.first[c])),
                       static_cast<double>(KeyOfRow(pairs.second[c]))});
    Put(h, record.tangential_force);
    h.insert(h.end(), {record.tangential_stiffness, record.normal_elastic_force,
                       static_cast<double>(pairs.state[c])});
    if (pair_extra) h.insert(h.end(), pairs.extra_history[c].begin(), pairs.extra_history[c].end());
  };
  if (any_leaves)
    for (std::size_t c = 0; c < pairs.first.size(); ++c) {
      const int a = leaves_to[pairs.first[c]], b = leaves_to[pairs.second[c]];
      if (a >= 0) send_pair(c, a);
      if (b >= 0 && b != a) send_pair(c, b);
    }
  ChoosePartners(escaped);
  // [rows, pair histories, wall histories] to every partner (empty parts
  // included) and to any other rank with something for it, which
  // ToPartners refuses.
  std::vector<std::vector<double>> messages(size_);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_ || (!std::binary_search(partners_.begin(), partners_.end(), r) &&
                       rows_out[r].empty() && pairs_out[r].empty() && walls_out[r].empty()))
      continue;
    std::vector<double>& message = messages[r];
    message = {static_cast<double>(rows_out[r].size() / row_doubles),
               static_cast<double>(pairs_out[r].size()), static_cast<double>(walls_out[r].size())};
    message.reserve(3 + rows_out[r].size() + pairs_out[r].size() + walls_out[r].size());
    message.insert(message.end(), rows_out[r].begin(), rows_out[r].end());
    message.insert(message.end(), pairs_out[r].begin(), pairs_out[r].end());
    message.insert(message.end(), walls_out[r].begin(), walls_out[r].end());
  }
  const std::vector<std::vector<double>> out = ToPartners(messages, "spheres");
  for (const std::vector<double>& message : out)
    migration_doubles_ += static_cast<std::int64_t>(message.size());
  const std::vector<std::vector<double>> in = comm_->Exchange(partners_, out);

  // Rows held here already (ghosts before) are overwritten in place; the
  // others are inserted. A sphere whose owner is now this rank has arrived.
  arrived_.clear(), arrived_pairs_.clear(), arrived_walls_.clear();
  std::vector<const double*> inserted;
  for (const std::vector<double>& message : in) {
    const std::size_t rows = static_cast<std::size_t>(message[0]);
    const std::size_t pair_doubles = static_cast<std::size_t>(message[1]);
    const std::size_t wall_doubles = static_cast<std::size_t>(message[2]);
    const double* cursor = message.data() + 3;
    for (std::size_t k = 0; k < rows; ++k, cursor += row_doubles) {
      const auto key = static_cast<std::int64_t>(cursor[0]);
      const int owner = static_cast<int>(cursor[6]);
      // Its sender owns it: here it was a ghost or absent.
      if (owner == rank_) arrived_.insert(key);
      const std::int64_t row = RowOfKey(key);
      if (row >= 0) {
        keep[row] = 1;
        next_owner[row] = owner;
        const double* state = cursor + kRowHead;
        TakeState(state, p, static_cast<std::size_t>(row));
      } else {
        inserted.push_back(cursor);
      }
    }
    for (const double* h = cursor; h < cursor + pair_doubles; h += pair_width)
      arrived_pairs_[{static_cast<std::int64_t>(h[0]), static_cast<std::int64_t>(h[1])}] =
          std::vector<double>(h + 2, h + pair_width);
    cursor += pair_doubles;
    for (const double* h = cursor; h < cursor + wall_doubles; h += wall_width)
      arrived_walls_[{static_cast<std::int64_t>(h[0]), static_cast<std::int64_t>(h[1])}] =
          std::vector<double>(h + 2, h + wall_width);
  }
  // New rows are appended (the departed ones still there), then one pass
  // removes the rows that are neither owned nor a ghost here any more and
  // puts the others in key order (ExplicitSolverStrategy::ReorderRows).
  // Bonds whose partner leaves this rank's rows, before it goes.
  if (!bond_count_.empty()) ParkDepartingBonds(keep, next_owner);
  const bool velocity_steps = s_.increments_are_velocity_steps_;
  // Rigid clusters: a cluster's rows and its state go together (RemoveRows)
  // before the new rows come; the one pass below then keeps every old row.
  std::size_t old_rows = n;
  if (clusters_in_run_ && std::find(keep.begin(), keep.end(), 0) != keep.end()) {
    const ScopedPhase phase(timings_.remove_rows);
    RemoveRows(keep);
    std::size_t out_row = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!keep[i]) continue;
      row_key_[out_row] = row_key_[i], next_owner[out_row] = next_owner[i];
      row_element_[out_row] = row_element_[i];
      ++out_row;
    }
    row_key_.resize(out_row), next_owner.resize(out_row), row_element_.resize(out_row);
    old_rows = out_row;
    keep.assign(old_rows, 1);
  }
  row_owner_ = std::move(next_owner);
  if (!inserted.empty()) {
    // New rows: a node and an element with their global ids, then every column.
    const auto& materials = s_.material_index_.List();
    // Its element as FillParticles takes it: a sphere, or a disc in 2D.
    static const std::string kSphere = "SphericParticle3D", kDisc = "CylinderParticle2D";
    std::vector<NewParticle> news;
    const std::size_t glued_at = RowDoubles(p);  // a row's glued columns, where sticky
    // In key order among themselves (from every sender), for the merge below.
    std::sort(inserted.begin(), inserted.end(),
              [](const double* a, const double* b) { return a[0] < b[0]; });
    for (const double* r : inserted) {
      NewParticle np;
      np.node_id = static_cast<IdType>(r[2]);
      np.element_id = static_cast<IdType>(r[1]);
      const Properties* material = materials.at(static_cast<std::size_t>(r[3]));
      np.properties = s_.spheres_.GetProperties(material->Id());
      np.radius = r[4];
      np.position = Array3{r[kRowHead], r[kRowHead + 1], r[kRowHead + 2]};
      np.velocity = Array3{r[kRowHead + 3], r[kRowHead + 4], r[kRowHead + 5]};
      np.element_type = s_.settings_.dimension == 2 ? &kDisc : &kSphere;
      news.push_back(np);
      row_key_.push_back(static_cast<std::int64_t>(r[0]));
      row_owner_.push_back(static_cast<int>(r[6]));
      row_element_.push_back(np.element_id);
    }
    const std::size_t first = s_.particles_.size();
    // The search follows this hook: it finds the new rows' candidates.
    s_.InsertParticles(news, /*search_follows=*/true);
    ParticleStorage& q = s_.Particles();
    for (std::size_t k = 0; k < inserted.size(); ++k) {
      const double* r = inserted[k];
      const std::size_t row = first + k;
      if (q.element_id[row] != static_cast<IdType>(r[1]))
        TESSERA_ERROR("DistributedDem: inserted row ", row, " is element ", q.element_id[row],
                      ", expected ", static_cast<IdType>(r[1]));
      q.fixed[row] = static_cast<std::uint8_t>(r[5]);
      const double* state = r + kRowHead;
      TakeState(state, q, row);
      Node node(&s_.spheres_.Nodal(), q.node[row]);
      const double* x0 = r + kRowHead + StateDoubles(q);
      node.InitialCoordinates() = Array3{x0[0], x0[1], x0[2]};
      // Appended rows: the glued list stays in row order.
      if (sticky) TakeGlued(r + glued_at, s_.glued_, q, row);
    }
  }
  // The rows kept in key order (the serial run's relative order of every
  // pair): the old rows are in key order, the new ones too, so a merge.
  // (At most searches no row leaves or arrives: nothing to do.)
  const std::size_t rows = row_key_.size();
  const std::size_t kept =
      static_cast<std::size_t>(std::count(keep.begin(), keep.end(), 1)) + (rows - old_rows);
  const bool appended_in_order = kept == rows && (rows == old_rows || old_rows == 0 ||
                                                  row_key_[old_rows - 1] < row_key_[old_rows]);
  if (!appended_in_order) {
    std::vector<std::uint32_t> order(kept);
    std::size_t i = 0, j = old_rows;
    while (i < old_rows && !keep[i]) ++i;
    for (std::size_t k = 0; k < kept; ++k) {
      if (j == rows || (i < old_rows && row_key_[i] < row_key_[j])) {
        order[k] = static_cast<std::uint32_t>(i++);
        while (i < old_rows && !keep[i]) ++i;
      } else {
        order[k] = static_cast<std::uint32_t>(j++);
      }
    }
    const auto by_key = [&](std::uint32_t a, std::uint32_t b) { return row_key_[a] < row_key_[b]; };
    if (!std::is_sorted(order.begin(), order.end(), by_key))
      std::sort(order.begin(), order.end(), by_key);
    const ScopedPhase phase(inserted.empty() ? timings_.remove_rows : timings_.reorder_rows);
    s_.ReorderRows(order);
    const auto gather = [&order](auto& column) {
      std::remove_reference_t<decltype(column)> kept(order.size());
      for (std::size_t k = 0; k < order.size(); ++k) kept[k] = column[order[k]];
      column.swap(kept);
    };
    gather(row_key_), gather(row_owner_), gather(row_element_);
  }
  FollowRows();
  // Inserted rows' increments are their owners' (carried): what the
  // serial run's next force evaluation reads.
  s_.increments_are_velocity_steps_ = velocity_steps;
  migrations_ += static_cast<std::int64_t>(arrived_.size());
}

void DistributedDem::InstallArrivedHistories() {
  if (arrived_.empty()) return;
  auto& pairs = s_.pairs_;
  auto& walls = s_.wall_contacts_;
  // The arrived spheres' rows (the bounding box may have removed some).
  std::vector<std::uint8_t> arrived(row_key_.size(), 0);
  for (const std::int64_t key : arrived_)
    if (const std::int64_t row = RowOfKey(key); row >= 0) arrived[row] = 1;
  for (std::size_t c = 0; c < pairs.first.size(); ++c) {
    if (!arrived[pairs.first[c]] && !arrived[pairs.second[c]]) continue;
    const std::int64_t a = KeyOfRow(pairs.first[c]), b = KeyOfRow(pairs.second[c]);
    // The old owner's history where the serial run had the pair before this
    // search, else a fresh contact (as the serial merge makes it).
    auto found = arrived_pairs_.find({a, b});
    PairHistory record{};
    std::uint8_t state = 0;
    if (found != arrived_pairs_.end()) {
      const std::vector<double>& h = found->second;
      record.tangential_force = Array3{h[0], h[1], h[2]};
      record.tangential_stiffness = h[3];
      record.normal_elastic_force = h[4];
      state = static_cast<std::uint8_t>(h[5]);
      if (pairs.keeps_extra_history)
        std::copy(h.begin() + 6, h.end(), pairs.extra_history[c].begin());
    } else if (pairs.keeps_extra_history) {
      pairs.extra_history[c] = ExtraHistoryRow{};
    }
    pairs.history[c] = record;
    pairs.state[c] = state;
  }
  for (std::size_t c = 0; c < walls.particle.size(); ++c) {
    if (!arrived[walls.particle[c]]) continue;
    const std::int64_t a = KeyOfRow(walls.particle[c]);
    auto found = arrived_walls_.find({a, static_cast<std::int64_t>(walls.face[c])});
    if (found != arrived_walls_.end()) {
      const std::vector<double>& h = found->second;
      walls.tangential_force[c] = Array3{h[0], h[1], h[2]};
      walls.tangential_stiffness[c] = h[3];
      walls.normal_elastic_force[c] = h[4];
      walls.sliding[c] = static_cast<std::uint8_t>(h[5]);
      walls.active[c] = static_cast<std::uint8_t>(h[6]);
      walls.point[c] = Array3{h[7], h[8], h[9]};
      if (walls.keeps_extra_history)
        std::copy(h.begin() + 10, h.end(), walls.extra_history[c].begin());
    } else {
      walls.tangential_force[c] = Array3{};
      walls.tangential_stiffness[c] = 0.0;
      walls.normal_elastic_force[c] = 0.0;
      walls.sliding[c] = 0;
      walls.active[c] = 0;
      walls.point[c] = Array3{};
      if (walls.keeps_extra_history) walls.extra_history[c] = ExtraHistoryRow{};
    }
  }
  arrived_pairs_.clear(), arrived_walls_.clear();
}

std::size_t DistributedDem::NumberOfOwned() const {
  std::size_t owned = 0;
  for (std::size_t i = 0; i < s_.particles_.size(); ++i) owned += OwnedRow(i) ? 1 : 0;
  return owned;
}

std::size_t DistributedDem::NumberOfGhosts() const {
  return s_.particles_.size() - NumberOfOwned();
}

std::vector<IdType> DistributedDem::OwnedElementIds() const {
  std::vector<IdType> ids;
  for (std::size_t i = 0; i < s_.particles_.size(); ++i)
    if (OwnedRow(i)) ids.push_back(s_.particles_.element_id[i]);
  return ids;
}

std::vector<IdType> DistributedDem::OwnedNodeIds() const {
  std::vector<IdType> ids;
  for (std::size_t i = 0; i < s_.particles_.size(); ++i)
    if (OwnedRow(i)) ids.push_back(Node(&s_.spheres_.Nodal(), s_.particles_.node[i]).Id());
  return ids;
}

double DistributedDem::GlobalKineticEnergy() const {
  if (clusters_in_run_) {
    // Members count with their cluster (the strategy's Energies(), owned rows).
    const EnergyTotals global = GlobalEnergies();
    return global.kinetic_translational + global.kinetic_rotational;
  }
  const ParticleStorage& p = s_.particles_;
  double sum = 0.0;  // in row (key) order
  for (std::size_t i = 0; i < p.size(); ++i)
    if (OwnedRow(i))
      sum += 0.5 * p.mass[i] * Dot(p.velocity[i], p.velocity[i]) +
             0.5 * p.inertia[i] * Dot(p.angular_velocity[i], p.angular_velocity[i]);
  return comm_->SumAll(sum);
}

EnergyTotals DistributedDem::GlobalEnergies() const {
  // Each rank's share (the strategy's Energies() over its owned rows, their
  // pair contacts by first sphere and their wall contacts; the dissipated
  // energies as this rank's running sums), summed term by term in rank order.
  const EnergyTotals local = s_.Energies();
  EnergyTotals global;
  for (const auto& term : kEnergyTerms) global.*term.second = comm_->SumAll(local.*term.second);
  return global;
}

std::int64_t DistributedDem::GlobalNumberOfParticles() const {
  return comm_->SumAll(static_cast<std::int64_t>(NumberOfOwned()));
}

std::int64_t DistributedDem::GlobalNumberOfParticleContacts() const {
  const auto& pairs = s_.pairs_;
  std::int64_t count = 0;
  for (std::size_t c = 0; c < pairs.first.size(); ++c)
    if (pairs.state[c] != 0 && OwnedRow(pairs.first[c])) ++count;
  return comm_->SumAll(count);
}

std::int64_t DistributedDem::GlobalNumberOfBonds() const {
  const ContinuumBonds& bonds = s_.bonds_;
  std::int64_t count = 0;
  for (std::size_t b = 0; b < bonds.size(); ++b) count += OwnedRow(bonds.first[b]) ? 1 : 0;
  return comm_->SumAll(count + NumberOfCountedParkedBonds());  // (parked ones are broken)
}

std::int64_t DistributedDem::GlobalNumberOfIntactBonds() const {
  const ContinuumBonds& bonds = s_.bonds_;
  std::int64_t count = 0;
  for (std::size_t b = 0; b < bonds.size(); ++b)
    if (OwnedRow(bonds.first[b]) && bonds.state[b] == static_cast<std::uint8_t>(BondState::kIntact))
      ++count;
  return comm_->SumAll(count);
}

std::int64_t DistributedDem::GlobalMigrations() const { return comm_->SumAll(migrations_); }

double DistributedDem::GhostDoublesPerStep() const {
  return refreshes_ > 0 ? static_cast<double>(ghost_doubles_) / static_cast<double>(refreshes_)
                        : 0.0;
}

}  // namespace tessera::dem
