// DistributedDem: the DEM explicit strategy over MPI ranks by spatial domain
// decomposition (docs/architecture.md, "Distributed DEM").
//
// Every rank runs an ExplicitSolverStrategy on its *local* rows: the spheres
// it owns (their centre in its box of a recursive coordinate bisection,
// rcb_decomposition.h) and ghosts, copies of the spheres of other ranks within
// one search reach (2 R_max + SearchTolerance) of its box. Each particle
// carries a global key, its row in the serial run (the rows at Initialize),
// and every rank keeps its rows in key order, so that a pair's first sphere,
// the arithmetic of its force and the order in which a sphere sums its
// contacts are those of the serial run: the owned spheres' results are the
// serial run's bit for bit (see the conditions in docs/architecture.md).
//
// The local set changes only where the strategy searches (SearchHooks), all
// ranks at the same steps: there particles migrate to the rank whose box holds
// them, with every column and, for those changing owner, the histories of
// their pair and wall contacts (keyed by the partners' keys), and the ghost
// layer is rebuilt. Between searches the candidate lists do not change, and
// after each step the ghosts' rows are overwritten by their owners' (state
// and forces, so that a ghost's next kick and drift are its owner's).
// A migration exchanges only with the ranks whose boxes lie within three
// layers of this rank's (neighbour boxes): a sphere sent at a search lies
// within a layer of its sender's box, which held it at the last search, so
// its new owner's box lies within one layer and the boxes whose layer holds
// it within two. Where a sphere went farther since (a search interval long
// for its speed: one vote at the search says so) or the boxes were cut
// again, that search exchanges with every rank.
// Every `rebalance_every` steps, at the next search, the boxes are recomputed
// from all owned spheres where the largest owned count exceeds
// `imbalance_threshold` times the mean (`balance` "count"). With `balance`
// "time" each rank measures its own compute time over the interval (the
// strategy's phases, MPI waits excluded: ComputeSeconds), from which its
// speed (its rows, owned and ghosts, per compute second; a damped average
// over the checks); where the largest time exceeds `imbalance_threshold`
// times the mean the bisection gives each rank the share of the spheres that
// equalises the predicted times (RebalanceByTime), so that a rank on a
// slower core, or in a denser region, holds fewer. Only the boxes depend
// on the timings: the results are the serial run's bits for any boxes.
//
// Inlets (AdoptInlets): every rank runs the same injection, its overlap test
// against the spheres of all ranks near the inlets (gathered), so every rank
// draws the same random numbers and makes the same spheres with the same ids;
// the new spheres take the next keys in injection order (the serial run
// appends them as rows in that order) and each rank keeps those it owns or
// holds in its ghost layer. The ghost layer counts the inlets' largest radius.
//
// FREE_BODY_MOTION walls: every rank holds every wall and integrates it; its
// contact force and moment are the sums over the wall contacts of all ranks'
// owned spheres, added in the serial run's contact order (by key) on rank 0
// and broadcast, so that every rank moves the walls with the serial run's
// bits (free_wall_loads.cpp). Their energies count on rank 0.
//
// Sticky walls: a glued sphere is owned, and migrates, like any other; every
// row sent carries its glued wall and reference centre, so that a rank
// moves its glued rows (ghosts too) with their walls as the serial run does.
// Whether the run has glued spheres (the strategy's choice of the
// relative-displacement form under Symplectic_Euler) is the run's, not the
// rank's.
//
// Bonds (the continuum strategy): a rank holds the bonds both of whose
// spheres are its rows (owned or ghosts), keyed by the spheres' keys, so
// that its rows' bond lists are the serial run's in the serial order; both
// ranks of a bond across a boundary evaluate it from the same rows (a ghost's
// are its owner's) and so keep the same state (law state, damage, broken
// flag) without exchanging it. At each search every sphere sent to a rank
// takes all its bonds along (partner keys and every column); a rank adds
// those whose two spheres it now holds and does not have yet. The ghost
// layer is at least 1.05 times the longest bond at start (with BrokenBonds
// "kratos" also 1.05 (2 R_max + 3 SearchTolerance) and 1.05 (L_max +
// SearchTolerance)). Started from pieces, each rank made the bonds of its
// piece, which holds every bond partner of the spheres it keeps
// (spheres_piece.h); the bonds per sphere come from their owners. A broken
// bond whose partner
// sphere leaves the rows of the rank owning the other sphere (the spheres
// parted farther than the layer) is parked there, by the spheres' keys, in
// the state the serial run's evaluations give it that far apart (no load;
// distributed_bonds.cpp says why that is exact); it travels with its owned
// sphere and in checkpoints, and returns to the rows' bonds at the search
// where both spheres are rows again. An owned sphere holds all its bonds,
// as rows' bonds or parked (checked at every search); an intact bond
// spanning more than the layer is an error.
//
// Periodic domains (PeriodicDomainOption): the bisection cuts the wrapped
// centres, and a sphere is a ghost of every rank whose box it lies within a
// layer of at its nearest periodic image (periodic_layer.h): a sphere near
// one face of the periodic box is a ghost of the ranks across the opposite
// face. A ghost is stored at its owner's wrapped position, not shifted by
// a period: the rank's search and contacts then take the nearest image of
// the same coordinates as the serial run, with the same arithmetic
// (Nearest(x_j - x_i)), where a shifted copy would give x_j + L - x_i,
// rounded otherwise. So each rank holds one row per key, a sphere whose
// images are near several faces of a rank's box included, and a rank whose
// box spans the period in a direction holds its own spheres' images there
// as the serial run does. Migration follows the wrap (the strategy wraps
// before the search hooks). A rigid cluster's centre is wrapped on its own
// (its members one by one), and its members' decisions are taken on it, so
// a cluster straddling a face goes whole to the ranks across it.
//
// Rigid clusters (distributed_clusters.cpp): a cluster is owned by the rank
// whose box holds its centre, and its member spheres with it (every decision
// on a member row, owner and ghost targets, is taken on its cluster's
// centre, Site), so a rank holds a cluster whole or not at all, as owner or
// ghost. The owner sums its members' loads as the serial run does
// (GatherClusterLoads over the members in row order, each member's contact
// force its serial sum, as for any owned sphere): no reduction between
// ranks. A member lies up to D (the largest member offset) from its centre,
// so the ghost layer grows by 2 D: the partners of an owned member, within
// one contact reach of it, have their centre within reach + 2 D of the box.
// Each migration carries, with the members, the cluster's element, node and
// state (centre, velocities, angular momentum, orientation, displacement,
// last loads and rotation vector: what the serial integrator keeps), and
// after each step the ghost clusters' state is their owner's
// (RefreshGhostClusters), so that a ghost cluster's next kick and drift
// place its members as the owner does. Whether the run has clusters is the
// run's (ExplicitSolverStrategy::ClustersInRun, voted at each search).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "applications/dem/parallel/rcb_decomposition.h"
#include "applications/dem/strategies/energy_bookkeeping.h"
#include "kernel/core/types.h"

namespace tessera {
class CheckpointReader;
class CheckpointWriter;
class Communicator;
}  // namespace tessera

namespace tessera::dem {

class ExplicitSolverStrategy;
class ParticleInlets;
struct NewParticle;
struct SpheresPiece;

// Wall-clock seconds of this rank's distributed work since Start (GetTimings;
// waits for the other ranks included, as they are part of the step):
//   vote          decisions taken by all ranks alike (MaxAll): the adaptive
//                 search's, and Symplectic Euler's form of the increments
//   ghost_refresh packing, exchanging and unpacking the ghosts' rows
//   migrate       SearchHooks::before_search: the exchange of rows and
//                 histories, of which
//   remove_rows   the rows that left this rank's set removed, where none
//                 arrived, or
//   reorder_rows  where rows arrived: the one pass that removes the departed
//                 rows and puts the others in key order (ReorderRows)
//   after_search  arrived histories installed, ghost lists rebuilt
struct DistributedTimings {
  double vote = 0.0;
  double ghost_refresh = 0.0;
  double migrate = 0.0;
  double remove_rows = 0.0;
  double reorder_rows = 0.0;
  double after_search = 0.0;
};

inline constexpr std::array<std::pair<const char*, double DistributedTimings::*>, 6>
    kDistributedTerms{{
        {"vote", &DistributedTimings::vote},
        {"ghost_refresh", &DistributedTimings::ghost_refresh},
        {"migrate", &DistributedTimings::migrate},
        {"remove_rows", &DistributedTimings::remove_rows},
        {"reorder_rows", &DistributedTimings::reorder_rows},
        {"after_search", &DistributedTimings::after_search},
    }};

struct DistributedDemSettings {
  int rebalance_every = 1000;        // steps between imbalance checks (0: never)
  double imbalance_threshold = 1.2;  // max / mean (owned count or time) that triggers a bisection
  std::string balance = "count";     // "count": equal owned counts; "time": by measured speed
};

// A rank's checkpoint file says it was written by rank `saved_rank` of
// `saved_ranks`: an error naming the file unless this is rank `rank` of
// `ranks` (distributed_checkpoint.cpp; the Moreau-Jean split's too).
void CheckSavedRank(const CheckpointReader& reader, std::int64_t saved_ranks,
                    std::int64_t saved_rank, int ranks, int rank);

class DistributedDem {
 public:
  DistributedDem(ExplicitSolverStrategy& strategy, std::shared_ptr<const Communicator> communicator,
                 DistributedDemSettings settings);
  ~DistributedDem();
  DistributedDem(const DistributedDem&) = delete;
  DistributedDem& operator=(const DistributedDem&) = delete;

  // After strategy.Initialize() on every sphere (each rank holds the whole
  // set then): the first bisection, each rank keeps its owned spheres and
  // ghosts, and the strategy's search hooks are installed. Refuses what does
  // not run distributed yet (an error naming the setting). `restored`: the
  // strategy holds the whole state merged from a checkpoint written on
  // another number of ranks (resized_checkpoint.py): its pair list is the
  // last search's, so each owned sphere's pair partners are kept as ghosts
  // too (they may have left the layer since), and the ghost lists say so.
  void Start(bool restored = false);
  // The same after the strategy's Initialize on this rank's piece of the
  // sphere file (spheres_piece.h): the piece's boxes and keys, and the
  // ghosts' rows from their owners. Refuses clusters and bonds.
  void StartFromPiece(const SpheresPiece& piece);
  // The strategy's contact indexes (first_start, force-block cross slots,
  // wall candidates per row; the bonds' where they have none) for its
  // present lists and rows: after a load of merged lists, which hold none
  // (resized_checkpoint.py).
  static void IndexContacts(ExplicitSolverStrategy& strategy);
  // Before Start: the run's inlets inject distributed (see above).
  void AdoptInlets(ParticleInlets& inlets);
  // After each strategy step: the ghosts' rows from their owners.
  void RefreshGhosts();

  // ---- the owned spheres (results, reductions)
  std::vector<IdType> OwnedElementIds() const;
  std::vector<IdType> OwnedNodeIds() const;
  std::size_t NumberOfOwned() const;
  std::size_t NumberOfGhosts() const;
  // Sums over all ranks (ascending rank order: the same bits on every rank).
  double GlobalKineticEnergy() const;
  // EnergyCalculationOption: every energy term of the run (the serial
  // run's Energies()), each rank counting its owned spheres, the pair
  // contacts and bonds whose first sphere (smaller key) it owns and its
  // owned spheres' wall contacts; the dissipated energies are per-rank running sums of
  // those contacts' and spheres' powers. Equal on every rank.
  EnergyTotals GlobalEnergies() const;
  std::int64_t GlobalNumberOfParticles() const;
  // Touching sphere pairs, each counted once (by the owner of its first sphere).
  std::int64_t GlobalNumberOfParticleContacts() const;
  // Bonds, each counted once (by the owner of its first sphere): all, intact.
  std::int64_t GlobalNumberOfBonds() const;
  std::int64_t GlobalNumberOfIntactBonds() const;
  // Broken bonds parked (see above): on this rank now; over the run on all
  // ranks (each time a rank parked a bond: of its rows' or one arriving).
  std::size_t NumberOfParkedBonds() const { return parked_.size(); }
  std::int64_t GlobalBondParkings() const;
  // This rank's parked bonds by (first key, second key), as BondArrays' columns
  // (the spheres by key and element id; first_owned: this rank owns the
  // first sphere, which counts it once in the run).
  struct ParkedBondColumns {
    std::vector<std::int64_t> first_key, second_key;
    std::vector<IdType> first_element, second_element;
    std::vector<std::uint8_t> first_owned, state, opened;
    std::vector<double> normal_force, failure_criterion, sigma, tau, rest_length, area;
    std::vector<Array3> shear_force, moment, direction;
  };
  ParkedBondColumns ParkedBonds() const;
  // Spheres that changed owner since Start, summed over the ranks; bisections made.
  std::int64_t GlobalMigrations() const;
  int Rebalances() const { return rebalances_; }
  // The ranks whose boxes lie within three layers of this rank's (see above),
  // ascending; the searches whose migration exchanged with those alone, and
  // those that exchanged with every rank while some boxes lie farther apart
  // (boxes cut again, or a sphere beyond its box's layer). Equal counts on
  // every rank (the choice is collective).
  const std::vector<int>& NeighbourBoxes() const { return neighbour_boxes_; }
  std::int64_t NeighbourMigrations() const { return neighbour_migrations_; }
  std::int64_t EveryRankMigrations() const { return every_rank_migrations_; }
  // Doubles sent by this rank per step in the ghost refresh (mean over steps)
  // and in all migrations together.
  double GhostDoublesPerStep() const;
  std::int64_t MigrationDoubles() const { return migration_doubles_ + bond_doubles_; }
  const std::vector<RcbBox>& Boxes() const { return boxes_; }
  // For a coupled run (owned_wall_forces.cpp): per wall node index of
  // `wall_nodes` (rows of the walls' root arrays), three doubles: what the
  // strategy's WriteToNodes puts in CONTACT_FORCES, from the wall contacts
  // of this rank's owned spheres only (a sum over the ranks counts each
  // contact once).
  std::vector<double> OwnedWallContactForces(const std::vector<std::int64_t>& wall_nodes) const;
  // For a coupled run (wall_search_domain.cpp): the wall faces of these
  // conditions (a structure's skin) enter this rank's wall searches only
  // where their box lies within the ghost layer plus the wall search
  // tolerance of this rank's box, which holds every candidate face of the
  // spheres it owns (their results stay the serial run's bits); the other
  // walls are searched whole as before. The region follows the boxes
  // (rebalancing, checkpoints). After Start; an id that is no face is an error.
  void SearchWallsNearDomain(const std::vector<IdType>& condition_ids);
  // Wall faces this rank's last wall search saw (all faces without
  // SearchWallsNearDomain).
  std::size_t NumberOfSearchedFaces() const;
  // The condition ids of those faces (only near-domain faces' selection
  // counts: the others are searched whole); empty without SearchWallsNearDomain.
  std::vector<IdType> SearchedFaceIds() const;
  // For a coupled run whose ranks hold older states of the skin faces they
  // do not search (skin_placement.cpp), after SearchWallsNearDomain: the skin's
  // faces are read from their nodes only by ReadSkinFaces, which `place`
  // calls in each step once the step knows whether it searches (its
  // argument), before the search and the forces.
  void PlaceSkinInStep(std::function<void(bool)> place);
  void ReadSkinFaces();
  // The points the skin faces hold (as last read) at these wall node
  // indices, three doubles per node.
  std::vector<double> SkinFacePoints(const std::vector<std::int64_t>& wall_nodes) const;
  // Collective, before a step whose skin moved: the largest displacement of
  // these skin nodes (the rank's owned ones; `positions` where they are
  // placed next, three per node) since the last search, over all ranks,
  // raises the adaptive search's wall displacement (the serial run's
  // measure over every vertex). Nothing where no wall tolerance arms it.
  void NoteSkinDisplacement(const std::vector<std::int64_t>& wall_nodes,
                            const std::vector<double>& positions);
  // Collective, after the strategy's WriteToNodes (global_wall_results.cpp):
  // the walls' CONTACT_FORCES, ELASTIC_FORCES, TANGENTIAL_ELASTIC_FORCES,
  // DEM_PRESSURE and SHEAR_STRESS of the whole run on every rank, from each
  // rank's owned spheres' wall contacts summed in ascending rank order (equal
  // to the serial run's up to the rounding of the partial sums).
  void WriteGlobalWallResults();
  double GhostLayer() const { return layer_; }
  // Element ids of the rigid clusters this rank owns (distributed_clusters.cpp).
  std::vector<IdType> OwnedClusterIds() const;
  const DistributedTimings& Timings() const { return timings_; }

  // Checkpoints (distributed_checkpoint.cpp): this rank's distributed state
  // (rows' keys, owners and element ids, boxes, ghost lists, bond counts,
  // counters) under `group`. LoadState after Start and after the strategy's
  // state of the same file was loaded; a file of another rank count or
  // another rank is an error naming both.
  void SaveState(CheckpointWriter& writer, const std::string& group) const;
  void LoadState(const CheckpointReader& reader, const std::string& group);

 private:
  // boxes_ from every owned sphere, bisected where they are (collective:
  // distributed_rcb.h); `weights` (per rank) as in
  // RecursiveCoordinateBisection (empty: equal counts).
  void Bisect(const std::vector<double>& weights = {});
  void MaybeRebalance();
  // balance "time": the speeds from this interval's compute times, and a
  // bisection by them where the times are out of balance (collective).
  void RebalanceByTime();
  // Seconds this rank spent in the strategy's phases since Initialize, less
  // the MPI waits inside them (the any_rank vote in the pair pass).
  double ComputeSeconds() const;
  void Migrate();  // SearchHooks::before_search
  // neighbour_boxes_ and all_near_ from boxes_; after every change of boxes_.
  void FindNeighbourBoxes();
  // partners_ for this search's migration (collective where not every box
  // is near): the neighbour boxes, or every rank where the boxes moved since
  // the last search or any rank's `escaped` (a sphere to send lies beyond
  // its box's layer).
  void ChoosePartners(bool escaped);
  // The per-rank messages (indexed by rank) to partners_, in its order; a
  // non-empty one to another rank is an error naming `what`.
  std::vector<std::vector<double>> ToPartners(std::vector<std::vector<double>>& per_rank,
                                              const char* what) const;
  void InstallArrivedHistories();  // SearchHooks::after_search
  void BuildGhostLists();
  // neighbours_, send_rows_, receive_rows_ from per-rank lists (moved from).
  void KeepGhostLists(std::vector<std::vector<std::uint32_t>>& send,
                      std::vector<std::vector<std::uint32_t>>& receive);
  std::int64_t KeyOfRow(std::size_t row) const;
  bool OwnedRow(std::size_t row) const;
  std::vector<int> OtherRanks() const;  // every rank but this one, in rank order
  // The row of a key, or -1 where this rank does not hold it (the rows are in
  // key order: a bisection).
  std::int64_t RowOfKey(std::int64_t key) const;
  // Per row from `first` on: whether this rank owns it and its site lies a
  // layer inside this rank's box (DeepInsidePeriodic): such a row stays here
  // and is no other rank's ghost.
  void MarkInterior(std::size_t first, std::vector<std::uint8_t>& interior) const;
  // The ranks other than `owner` whose ghost layer holds x.
  void GhostTargets(const Array3& x, int owner, std::vector<int>& targets) const;
  // The per-row arrays after the strategy removed rows itself (the bounding
  // box, between Migrate and the search), then row_owned_ from row_owner_.
  void FollowRows();
  // Inlets (InletHooks): the owned spheres of all ranks near the inlets, and
  // the injected spheres this rank keeps, with their rows in the ghost lists.
  double GatherNearInlets(const Array3& low, const Array3& high, double largest_new,
                          std::vector<Array3>& centres, std::vector<double>& radii) const;
  void InsertInjected(const std::vector<NewParticle>& fresh);
  void AddRowsToGhostLists(std::size_t first);
  // Bonds (see above): per other rank, the bonds of the spheres sent there at
  // this search (before Migrate); after it, exchanged and added where new.
  std::vector<std::vector<double>> PackBonds() const;
  void InstallBonds(std::vector<std::vector<double>> out);
  void CheckOwnedBonds() const;  // an error where an owned sphere lacks a bond
  // At the start from pieces: bond_count_ from every rank's owned rows.
  void GatherBondCounts();
  // Migrate, once the rows that stay are known and before the others go:
  // parks the rows' bonds one of whose spheres this rank owns after the
  // search while the other leaves (distributed_bonds.cpp).
  void ParkDepartingBonds(const std::vector<std::uint8_t>& keep,
                          const std::vector<int>& next_owner);
  // A bond record parked in its far state (an intact one is an error).
  void Park(std::vector<double> record);
  std::size_t BondRecordDoubles() const;
  std::int64_t NumberOfCountedParkedBonds() const;  // those whose first sphere is owned here
  // FREE_BODY_MOTION walls (free_wall_loads.cpp, SearchHooks::free_wall_loads):
  // their contact loads from every rank's owned spheres, in the serial order.
  void ReduceFreeWallLoads();
  // SearchWallsNearDomain's region from this rank's box (after the boxes change).
  void UpdateWallRegion();
  // The slot 4 f + k of the first skin face vertex at wall node index `node`
  // (PlaceSkinInStep's table); an error where it is none.
  std::int64_t SkinVertex(std::int64_t node) const;
  // Rigid clusters (distributed_clusters.cpp, see above): where a row's
  // owner and ghost targets are decided (its cluster's centre for a member);
  // the largest member offset; the strategy's RemoveParticles with the
  // clusters whose members go; per other rank the clusters sent at this
  // search (before Migrate), exchanged and installed after it; the ghost
  // clusters' state after each step; the run's vote on having clusters.
  Array3 Site(std::size_t row) const;
  double ClusterReach() const;
  void RemoveRows(const std::vector<std::uint8_t>& keep);
  std::vector<std::vector<double>> PackClusters() const;
  void InstallClusters(std::vector<std::vector<double>> out);
  void RefreshGhostClusters();
  void VoteClusters();

  ExplicitSolverStrategy& s_;
  std::shared_ptr<const Communicator> comm_;
  DistributedDemSettings settings_;
  int rank_ = 0, size_ = 1;
  double layer_ = 0.0;
  std::vector<RcbBox> boxes_;
  const SpheresPiece* piece_ = nullptr;  // during StartFromPiece
  // Migration partners (see above): the neighbour boxes' ranks, whether every
  // pair of boxes is near (then every search exchanges with every rank and
  // nothing is voted), whether a bisection moved boxes_ since the last
  // migration (Start and a checkpoint's load keep rows by their boxes), this
  // search's partners and the two kinds of searches counted.
  std::vector<int> neighbour_boxes_, partners_;
  bool all_near_ = true, boxes_moved_ = false;
  std::int64_t neighbour_migrations_ = 0, every_rank_migrations_ = 0;
  // Per row (ascending keys): its key, owner rank and element id, and whether
  // this rank owns it (the strategy's counted rows). Vectors, not maps keyed
  // by id: a search then costs this object no allocation per row.
  std::vector<std::int64_t> row_key_;
  std::vector<int> row_owner_;
  std::vector<IdType> row_element_;
  std::vector<std::uint8_t> row_owned_;
  // Ghost refresh: per neighbour rank, the rows sent (owned, ascending key)
  // and the rows received (ghosts owned there, ascending key).
  std::vector<int> neighbours_;
  std::vector<std::vector<std::uint32_t>> send_rows_, receive_rows_;
  // The ghost refresh's messages, per neighbour (kept: no allocation per step).
  std::vector<std::vector<double>> ghost_out_, ghost_in_;
  // Histories that came with spheres now owned here, applied after the search.
  std::unordered_set<std::int64_t> arrived_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<double>> arrived_pairs_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<double>> arrived_walls_;
  ParticleInlets* inlets_ = nullptr;
  // Bonds per sphere key in the whole run (constant: bonds are never removed).
  std::unordered_map<std::int64_t, std::uint32_t> bond_count_;
  std::int64_t bond_doubles_ = 0;
  // Parked bonds (bond records, distributed_bonds.cpp) by their spheres' keys,
  // and the bonds this rank parked over the run.
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<double>> parked_;
  std::int64_t parkings_ = 0;
  std::int64_t next_key_ = 0;  // the key of the next injected sphere
  int last_balance_step_ = 0;
  int rebalances_ = 0;
  // balance "time": ComputeSeconds at the last check, the waits inside the
  // strategy's phases, and per rank its damped speed (rows, owned and
  // ghosts, per compute second; empty before the first check). Equal on
  // every rank (from gathered values), not saved in checkpoints (a restart
  // measures again from equal counts).
  double compute_mark_ = 0.0, waits_in_phases_ = 0.0;
  std::vector<double> speed_;
  std::int64_t migrations_ = 0;
  std::int64_t ghost_doubles_ = 0, refreshes_ = 0, migration_doubles_ = 0;
  // Whether the run had rigid clusters at Start (every rank alike), and the
  // ghost clusters' refresh messages per neighbour (kept between steps).
  bool clusters_in_run_ = false;
  std::vector<std::vector<double>> cluster_out_, cluster_in_;
  DistributedTimings timings_;
  // Per wall node index, its SkinVertex slot or -1 (PlaceSkinInStep).
  std::vector<std::int64_t> skin_vertex_;
};

}  // namespace tessera::dem
