// ExplicitSolverStrategy: the DEM time step over particle and wall rows.
//
// One step (thesis §2, Fig. 2.1), for Forward_Euler, Symplectic_Euler and
// Taylor_Scheme:
//   search (every NeighbourSearchFrequency steps: cell grid, candidates within
//   radius + SearchTolerance) -> contact check and forces on every candidate ->
//   gravity -> integration of velocities and positions.
// For Velocity_Verlet (Table 2.1): half kick + drift with the forces of the
// previous step -> search -> forces at the new positions -> second half kick.
// Rotations (RotationalIntegrationScheme Direct_Integration) use the same
// scheme on ω with T/I (isotropic inertia of a sphere: no gyroscopic term).
// Particles glued to sticky walls (walls/glued_particles.h: found at
// Initialize, after the first search) are not integrated: each step places them
// with their wall's imposed motion, right after the walls move.
//
// Rigid sphere clusters (Cluster3D, particles/rigid_clusters.h): their member
// spheres are rows like any sphere, except that the search drops pairs of
// members of one cluster and the integration skips them; after the forces are
// gathered each cluster sums its members' loads, moves as a rigid body with
// the same kick/drift pattern as the rows, and places its members.
// Search cadence: Initialize searches, then the steps with
// (step + 1) % NeighbourSearchFrequency == 0 (step counted from 1), where
// Kratos' DEM strategy runs its search operations. A contact that starts
// between searches beyond the search tolerance is found only at the next one,
// so Kratos decks with zero tolerance need this cadence to match (dem3d_contact).
// Adaptive search (DemSettings::adaptive_search, on by default): a step also
// searches, before its forces, when the candidates of the last search may no
// longer hold every contact: a pair farther apart than SearchTolerance at the
// search closes its gap by at most the sum of both spheres' displacements since
// (2 d_p, d_p the largest), and a sphere and a face by d_p + d_w (d_w the
// largest displacement of a wall vertex, which bounds that of any point of a
// face). So it searches when 2 d_p > SearchTolerance or d_p + d_w >
// search_tolerance_against_walls; NeighbourSearchFrequency stays the longest
// interval. A zero tolerance promises no margin, and any motion would trigger
// every step: a zero tolerance arms no trigger of its kind (Kratos' cadence,
// which zero-tolerance Kratos decks need to match Kratos). The displacement
// check is one pass over the rows (and the face vertices) per step, a max,
// which is the same for any thread count.
// Bounding box (BoundingBoxOption): spheres, and clusters by their centre with
// all their members, are deleted at the same steps (Kratos destroys them in its
// search operations); a step that deletes anything also searches again.
//
// Data: ParticleStorage and RigidFaceStorage rows, and two contact lists
// (particle pairs, particle-face pairs) whose histories (tangential spring
// force, previous stiffness and normal force, sliding state) survive a new
// search: old and new lists are both sorted and merged. Every
// sort_rows_frequency steps a search first sorts the particle rows in space
// (SortRows) and renumbers the old lists, so that the merge still pairs them.
//
// Forces are summed per particle in one pass over the pair list, cut into
// blocks of DemTuning::force_block_rows particle rows (a fixed size, not one
// per thread):
// a block computes the contacts whose first particle it owns and adds each
// force straight to both particles when the second one is in the block too;
// a force on a particle of a later block goes to a per-contact slot that the
// per-particle gather adds afterwards, in slot order. Every particle thus sums
// the same terms in the same order whatever the number of threads, so results
// are bitwise the same for 1 or 64 threads, without storing every contact's
// force and reading it back.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "applications/dem/contact_laws/bond_law.h"
#include "applications/dem/contact_laws/contact_law.h"
#include "applications/dem/contact_laws/pair_contact_batch.h"
#include "applications/dem/particles/continuum_bonds.h"
#include "applications/dem/particles/initial_overlaps.h"
#include "applications/dem/particles/particle_storage.h"
#include "applications/dem/particles/rigid_clusters.h"
#include "applications/dem/strategies/energy_bookkeeping.h"
#include "applications/dem/strategies/global_damping.h"
#include "applications/dem/strategies/memory_report.h"
#include "applications/dem/strategies/phase_timings.h"
#include "applications/dem/strategies/row_integration.h"
#include "applications/dem/strategies/row_quads.h"
#include "applications/dem/utilities/neighbour_search.h"
#include "applications/dem/utilities/periodic_box.h"
#include "applications/dem/walls/area_distribution.h"
#include "applications/dem/walls/free_rigid_wall.h"
#include "applications/dem/walls/glued_particles.h"
#include "applications/dem/walls/imposed_wall_motion.h"
#include "applications/dem/walls/rigid_face_storage.h"
#include "applications/dem/walls/sphere_face_area_gradient.h"
#include "applications/dem/walls/wall_search_region.h"
#include "kernel/model/properties.h"

namespace tessera {
class ModelPart;
}

namespace tessera::dem {

// Tuning switches: each keeps a second code path alive, the reference path
// that the equality tests run against the default fast one, and none is
// physics. The vector paths (batched_pair_contacts, eight_lane_pair_contacts,
// quad_row_updates, batched_bonds) and shared rows (share_rows_with_nodes) give bitwise the
// results of their reference paths (test_dem_contact_batch.py,
// test_dem_row_quads.py, test_dem_shared_rows.py, test_dem_elastic_forces.py,
// test_dem_continuum_bonds.py);
// the spatial sort (sort_rows_*) and the force block size (force_block_rows)
// change only the order of sums, so results at round-off
// (test_dem_spatial_sort.py, test_dem_search.py), never with the number of
// threads. Python reads and sets them as DemSettings.tuning.<name>, and by
// their former names on DemSettings itself.
struct DemTuning {
  // Sphere-sphere contacts evaluated in vectorised batches
  // (contact_laws/pair_contact_batch.h) where every particle pair follows one
  // 3D law; false keeps the scalar loop. Both give bitwise the same results.
  bool batched_pair_contacts = true;
  // The batches' contact law (and touching test) on eight lanes where the
  // processor has AVX-512 (F, DQ, VL) and BMI2; false keeps four lanes
  // (AVX2). Both give bitwise the same results.
  bool eight_lane_pair_contacts = true;
  // Intact bonds of one law evaluated four at a time on vector lanes
  // (particles/bond_forces.cpp) where the processor has AVX2; false keeps the
  // bond-by-bond loop. Both give bitwise the same results.
  bool batched_bonds = true;
  // The rows' sums and updates done four rows at a time (strategies/row_quads.h)
  // where the processor has AVX2; false keeps the row-by-row loops. Both give
  // bitwise the same results.
  bool quad_row_updates = true;
  // The rows are sorted in space (utilities/spatial_order.h) by the first search
  // at least sort_rows_frequency steps after the last sort (0: never), when
  // there are at least sort_rows_minimum rows (fewer fit in cache in any
  // order). An inlet appends spheres in the order it injects them and a mesher
  // numbers them its own way; sorted, neighbours in space are neighbours in
  // memory. Only the order of the sums changes (round-off), and the rows'
  // order: ParticleStorage::element_id names each row's element.
  int sort_rows_frequency = 1000;
  std::size_t sort_rows_minimum = 4096;
  // Rows per force block (the class comment of ExplicitSolverStrategy): a
  // constant of the run, not of the thread count, so results do not depend on
  // the number of threads; they do depend on it at round-off (the order of the
  // sums). Smaller blocks balance threads better at the end of a force pass
  // (blocks are handed out one at a time), larger ones need fewer cross slots:
  // in a spatially sorted packing a contact reaches about a layer of spheres
  // ahead, so with 2048 rows most contacts near a block's end went through a
  // slot; 8192 rows, measured against 2048 and 4096 with dem_option_ab.py
  // --option block, were the fastest on one thread and as fast on two.
  std::size_t force_block_rows = 8192;
  // Where the spheres' model part holds only their nodes, laid out as the rows
  // (the spatial sort does that), the rows' state and force columns are the
  // nodal columns themselves (ParticleStorage::ShareColumnsWithNodes): one
  // copy of each instead of two, and no copies between rows and nodes at each
  // step. false keeps separate rows (for comparisons).
  bool share_rows_with_nodes = true;
};

struct DemSettings {
  Array3 gravity{0.0, 0.0, -9.81};
  double delta_time = 5e-5;
  TranslationalScheme scheme = TranslationalScheme::kSymplecticEuler;
  RotationalScheme rotational_scheme = RotationalScheme::kDirect;
  bool rotation = true;           // RotationOption: integrate angular velocities
  bool rolling_friction = false;  // RollingFrictionOption (contact_laws/rolling_friction.h)
  // How Hertz pairs turn restitution into damping (HertzDampingMap; contact_law.h).
  HertzDampingMap hertz_damping = HertzDampingMap::kExact;
  // The normal stiffness of 3D linear pairs (LinearContactStiffness; contact_law.h).
  LinearStiffness linear_stiffness = LinearStiffness::kThesis;
  // The KDEM bonds' springs (BondStiffness; contact_laws/bond_law.h).
  BondStiffness bond_stiffness = BondStiffness::kThesis;
  // The bonds' section correction and, for the global one, the porosity P
  // (BondAreaCorrection, BondAreaPorosity; contact_laws/bond_law.h).
  BondAreaCorrection bond_area_correction = BondAreaCorrection::kKratos;
  double bond_area_porosity = -1.0;
  // Where the bonds' shear forces act (BondLeverArms; contact_laws/bond_law.h).
  BondLeverArms bond_lever_arms = BondLeverArms::kCentres;
  // What a broken bond carries (BrokenBonds; contact_laws/bond_law.h).
  BrokenBonds broken_bonds = BrokenBonds::kFrictional;
  // DEM_Dempack's force past the strength (BondDamage; contact_laws/bond_law.h).
  BondDamage bond_damage = BondDamage::kKratos;
  bool energy_calculation = false;  // EnergyCalculationOption: accumulate dissipated energies
  int search_frequency = 50;
  // AdaptiveSearch: search before NeighbourSearchFrequency steps have passed
  // when spheres or wall vertices have moved far enough since the last search
  // to meet outside the candidates (the class comment of ExplicitSolverStrategy);
  // a zero tolerance arms no trigger of its kind.
  bool adaptive_search = true;
  double search_tolerance = 0.0;       // particle-particle (DeltaOption "Absolute")
  double wall_search_tolerance = 0.0;  // search_tolerance_against_walls
  double global_damping = 0.0;         // non-viscous background damping (thesis 5.18-5.19)
  // Its form (GlobalDampingForm; strategies/global_damping.h).
  GlobalDampingForm global_damping_form = GlobalDampingForm::kVector;
  // VirtualMassCoefficient (Kratos' force reduction factor), 0 < c <= 1: every
  // acceleration, translational and rotational, of spheres, clusters and free
  // walls is c times F/m (as if the masses were m/c), for quasi-static runs.
  double virtual_mass_coefficient = 1.0;
  bool bounding_box = false;
  // PeriodicDomainOption: the bounding box is a periodic domain along all three
  // axes (utilities/periodic_box.h): spheres leaving it come back through the
  // opposite face instead of being deleted, and touch across its faces.
  bool periodic = false;
  Array3 bounding_box_min{-10.0, -10.0, -10.0};
  Array3 bounding_box_max{10.0, 10.0, 10.0};
  double bounding_box_start_time = 0.0;
  double bounding_box_stop_time = 1000.0;
  bool clean_indentations = false;  // shrink initially overlapping spheres until they touch
  bool remove_embedded = false;     // delete spheres lying wholly inside another at start
  // RemoveBallsInitiallyTouchingWalls: delete the spheres that touch a wall
  // face at start (not members of clusters), before gluing to sticky walls.
  bool remove_touching_walls = false;
  // How a wall contact's force reaches the wall's nodes (walls/area_distribution.h):
  // direct interpolation (Kratos' wall results) or the Area Distributed Method,
  // which also scales each contact's normal force by its faces' share of the
  // sphere's intersection area (the DE-FE coupling's default).
  WallForceTransfer wall_force_transfer = WallForceTransfer::kDirect;
  // The slider of the wall contacts when spring plus dashpot exceed μ F_n:
  // false, force and spring capped along their sum (thesis 2.37, as between
  // spheres); true, Kratos' split (LawContact::elastic_slider: the spring
  // keeps its elastic part, the dashpot fills the cap). ProjectParametersDEM
  // "WallSlider" "thesis" / "kratos"; Kratos' CoSimulation decks take "kratos".
  bool kratos_wall_slider = false;
  // Wall sub model parts (names below the walls' model part, or full names)
  // whose faces use the Area Distributed Method whatever wall_force_transfer
  // says: the DE-FE coupling's skin, so that the deck's own rigid walls keep
  // their contacts, and a sphere pressed into a corner of two rigid walls is
  // not given a share of one of them (ADM's A_m / A_T is meant for the faces
  // of one deforming surface).
  std::vector<std::string> area_distributed_walls;
  // Under ADM, the normal elastic forces of a sphere's skin contacts, on the
  // sphere and on the faces' vertices, are minus the gradients of one stored
  // energy, Σ_e (A_e/A_T) U(δ_e) over the faces it cuts
  // (strategies/adm_energy_gradient.cpp), instead of the thesis' masters'
  // forces (B.1) spread at the intersection centroids (B.2), which do work
  // that no energy stores on a denting skin.
  bool adm_energy_gradient = false;
  // Full names of FREE_BODY_MOTION wall parts that a process moves instead
  // (apply_kinematic_constraints_to_walls_process): not integrated here.
  std::vector<std::string> walls_moved_by_processes;
  // 3: spheres; 2: discs in the x-y plane (CylinderParticle2D, unit thickness,
  // RigidEdge2D2N walls, 2D contact laws): forces stay in the plane and torques
  // along z, so z velocities and x/y angular velocities stay zero.
  int dimension = 3;
  // Continuum strategy (Kratos' continuum_sphere_strategy): at Initialize,
  // spheres of one non-zero COHESIVE_GROUP whose gap is at most the search
  // tolerance are bonded (particles/continuum_bonds.h, KDEM law in
  // contact_laws/bond_law.h), as Kratos' first search makes its bonds.
  bool continuum = false;
  // How the step is computed, not what it computes (DemTuning).
  DemTuning tuning;
};

// PeriodicDomainOption's domain: the bounding box, periodic along x, y and (3D) z.
inline PeriodicBox PeriodicDomainOf(const DemSettings& s) {
  return PeriodicBox{true, {true, true, s.dimension != 2}, s.bounding_box_min, s.bounding_box_max};
}

// Whether the bounding box deletes what leaves it at `time` (BoundingBoxOption
// within its start and stop times; a periodic domain wraps instead).
inline bool BoundingBoxDeletesAt(const DemSettings& s, double time) {
  return s.bounding_box && !s.periodic && time >= s.bounding_box_start_time &&
         time <= s.bounding_box_stop_time;
}

// Estimates for choosing Δt (thesis §2.6.4): the critical step of the stiffest
// contact, Δt_cr = 2/ω (sqrt(1 + ξ²) - ξ) with ω = sqrt(k/m) (2.67, 2.71), and the
// shortest contact duration t_c (undamped: π sqrt(m/k) linear, Hertz A.19) at
// the given impact speed, with the material pair they come from.
struct TimeStepEstimate {
  double critical_time_step = 0.0;
  double contact_time = 0.0;
  std::string contact_time_pair;
  double reference_speed = 0.0;
};

// A sphere added while running (particle inlets): its new node and element
// ids, centre, velocity, radius, material and element name.
struct NewParticle {
  IdType node_id = 0, element_id = 0;
  Array3 position{}, velocity{};
  double radius = 0.0;
  Properties::Pointer properties;
  const std::string* element_type = nullptr;
};

struct StrategyCheckpointAccess;  // io/dem_checkpoint.cpp
class DistributedDem;             // parallel/distributed_dem.cpp

// What a distributed run (parallel/distributed_dem.h) does inside a step:
// `vote` turns this rank's adaptive-search decision into the run's (any rank's),
// so that all ranks search at the same steps; `before_search` runs right
// before a step's search (the particles migrate and the ghosts are rebuilt
// there, where the positions are those the search sees); `after_search`
// right after it (the histories that came with migrated particles are put
// into the new lists); `free_wall_loads` replaces CollectFreeWallLoads' sum
// over this rank's contacts by the run's (every rank's owned spheres, in the
// serial order); `any_rank` turns a rank's condition into the run's (true
// where it holds on any rank), for the decisions every rank must take alike.
// `place_walls` runs in each step once the step knows whether it searches
// (its argument), before the search and the forces: a coupled run places its
// skin's faces there (deferred_faces_, parallel/skin_placement.cpp).
// Unset: a serial run, nothing is called.
struct SearchHooks {
  std::function<bool(bool)> vote;
  std::function<bool(bool)> any_rank;
  std::function<void()> before_search, after_search;
  std::function<void()> free_wall_loads;
  std::function<void(bool)> place_walls;
};

class ExplicitSolverStrategy {
 public:
  // `walls` may be null (no walls). The model parts must outlive the strategy.
  ExplicitSolverStrategy(ModelPart& spheres, ModelPart* walls, DemSettings settings);

  // Builds the rows (spheres' Check() included), the material pair table and
  // the first contact lists; computes the first forces (needed by
  // Velocity_Verlet, and what TOTAL_FORCES shows at time 0).
  void Initialize();
  // One step of length delta_time ending at `time` (bounding box times refer to it).
  void SolveSolutionStep(double time);

  // The material of particles that will be inserted later (inlets) and the
  // smallest radius they will have: the pair table is built at Initialize()
  // from the materials known then, and EstimateTimeStep counts such spheres.
  void RegisterParticleMaterial(const Properties* properties, double smallest_radius);
  // A distributed start from pieces (spheres_piece.h): the particle
  // materials, by Properties id of the spheres' model part, numbered in this
  // order before the pieces' own spheres, as the serial run numbers them.
  void SetParticleMaterialOrder(std::vector<IdType> properties_ids);
  // A distributed start from pieces with CleanIndentationsOption: Initialize
  // applies the serial run's shrinks of overlapping spheres (a chain along
  // the pairs that a piece cannot follow) to this piece's spheres instead of
  // shrinking its own pairs. The provider (ShareInitialShrinks,
  // spheres_piece.h; collective) is called where the serial start shrinks,
  // with the element ids of the spheres this piece deleted as touching a wall.
  using InitialShrinksProvider =
      std::function<InitialShrinks(const std::vector<IdType>& deleted_touching_walls)>;
  void SetInitialShrinks(InitialShrinksProvider provider);
  // A distributed start from pieces with clusters: the first node and element
  // id of each cluster's members, in the cluster model part's order (it holds
  // the piece's clusters; the serial run numbers them after every id read).
  void SetClusterMemberIds(ClusterMemberIds ids);
  // A distributed start from pieces with BondAreaCorrection "global": the
  // whole specimen's bonds and bonded spheres from each piece's
  // (CountBondsOverPieces, spheres_piece.h); collective, at Initialize.
  using GlobalBondCounts = decltype(BondAreaSettings::global_counts);
  void SetGlobalBondCounts(GlobalBondCounts counts);
  // Adds spheres between steps: each gets a node (coordinates, RADIUS, VELOCITY,
  // the six velocity dofs) and an element of the spheres model part, and a row
  // at the end. Their candidate pairs and wall faces (within the search
  // tolerances) are found around them and merged into the contact lists, which
  // keep every existing contact as it is (histories, the forces and energies of
  // the last evaluation): no full search. They must not overlap anything (the
  // caller checks): their force until the next evaluation is their weight.
  // With `search_follows` (a search comes before the next force evaluation:
  // the distributed run's migration) their candidates are left to it.
  void InsertParticles(const std::vector<NewParticle>& particles, bool search_follows = false);
  // Spheres a script creates in the spheres' model part between steps (a node
  // with RADIUS and VELOCITY, an element of a particle material known at
  // Initialize) join the run at the next ReadFromNodes or SolveSolutionStep,
  // as inserted particles do (their candidates found around them, their first
  // force their weight). Elements removed by a script are an error: the
  // strategy deletes particles itself.
  void AdoptElementsAddedToTheModelPart();
  ModelPart& SpheresModelPart() { return spheres_; }
  // The model part of the Cluster3D elements (ClusterPart); before Initialize,
  // which creates their member spheres in the spheres model part.
  void SetClusterModelPart(ModelPart& clusters);
  const RigidClusters& Clusters() const { return clusters_; }
  // The bonds of the continuum strategy (empty otherwise), rows as the particles'.
  const ContinuumBonds& Bonds() const { return bonds_; }

  // Synchronisation with the nodes (see particle_storage.h); WriteToNodes also
  // writes the wall nodes' CONTACT_FORCES, ELASTIC_FORCES,
  // TANGENTIAL_ELASTIC_FORCES, DEM_PRESSURE, SHEAR_STRESS and DEM_NODAL_AREA
  // from the wall contacts of the last force evaluation. The particles'
  // ELASTIC_FORCES are summed only where the spheres' model part declares
  // that variable (nothing in a step reads them; Initialize does not declare
  // it): the rows follow the declarations at Initialize and ReadFromNodes.
  void ReadFromNodes();
  void WriteToNodes();

  TimeStepEstimate EstimateTimeStep(double reference_speed) const;
  double MaximumSpeed() const;
  double KineticEnergy() const;         // translational + rotational
  double ContactElasticEnergy() const;  // normal + tangential spring energy of the active contacts
  // Kinetic, potential, elastic and (with energy_calculation) the energies
  // dissipated since Initialize() (see energy_bookkeeping.h). In a
  // distributed run this rank's share (counted_rows_);
  // DistributedDem::GlobalEnergies sums the ranks'.
  EnergyTotals Energies() const;
  std::size_t NumberOfParticleContacts() const;  // active
  // Whether the next pair-force evaluation takes a contact's relative
  // displacement over the step as its relative velocity times Δt instead of
  // the spheres' increments (mathematically the same where the increments are
  // the velocities times Δt; no gathering of the increments).
  bool RelativeDisplacementIsVelocityStep() const;
  std::size_t NumberOfWallContacts() const;
  std::size_t NumberOfParticlePairCandidates() const { return pairs_.first.size(); }
  // The candidate lists of the last search (sorted).
  const std::vector<std::uint32_t>& PairFirst() const { return pairs_.first; }
  const std::vector<std::uint32_t>& PairSecond() const { return pairs_.second; }
  const std::vector<std::uint32_t>& WallCandidateParticle() const {
    return wall_contacts_.particle;
  }
  const std::vector<std::uint32_t>& WallCandidateFace() const { return wall_contacts_.face; }
  int StepCount() const { return step_; }
  // Searches since Initialize (its own included), and of those the ones a
  // step made early because spheres or walls had moved too far (adaptive search).
  std::size_t NumberOfSearches() const { return searches_; }
  std::size_t NumberOfEarlySearches() const { return early_searches_; }
  // The adaptive search's largest wall vertex displacement since the last
  // search, as far as the steps since have measured it (0 after a search).
  double WallDisplacementSinceSearch() const { return wall_displacement_; }
  // Wall-clock seconds per phase since Initialize() or ResetTimings() (phase_timings.h).
  const PhaseTimings& Timings() const { return timings_; }
  void ResetTimings() { timings_ = PhaseTimings{}; }
  // Bytes the strategy's arrays hold, by part (memory_report.h).
  MemoryReport HeldMemory() const;

  // The rows; shared columns first move to the database's current storage (a
  // new solution step's).
  ParticleStorage& Particles() {
    RefreshSharedRows();
    return particles_;
  }
  const ParticleStorage& Particles() const { return particles_; }
  const RigidFaceStorage& Faces() const { return faces_; }
  // The FREE_BODY_MOTION walls (walls/free_rigid_wall.h), in sub model part order.
  const std::vector<FreeRigidWall>& FreeWalls() const { return free_walls_; }
  // The particles glued to sticky walls at Initialize, and those walls.
  const GluedParticles& Glued() const { return glued_; }
  const DemSettings& Settings() const { return settings_; }
  const MaterialTable& Materials() const { return table_; }
  // Changes Δt (AutomaticTimestep); must be > 0.
  void SetDeltaTime(double dt);
  // Hooks of a distributed run (SearchHooks); set once, before the first step.
  void SetSearchHooks(SearchHooks hooks) { hooks_ = std::move(hooks); }

 private:
  // Saves and restores every member that carries state from step to step.
  friend struct StrategyCheckpointAccess;
  // Moves rows and their histories between ranks (parallel/distributed_dem.cpp).
  friend class DistributedDem;
  struct PairContacts {
    std::vector<std::uint32_t> first, second;  // i < j, sorted
    std::vector<PairHistory> history;
    // The side table of the laws that keep more than the record's five
    // doubles (contact_force.h, ExtraHistoryRow): a row per candidate where
    // `keeps_extra_history` (a particle pair of the run has such a law), else
    // empty. It follows the records wherever they go.
    std::vector<ExtraHistoryRow> extra_history;
    bool keeps_extra_history = false;
    // PairState bits (touching, sliding), apart from the histories: the
    // touching test reads and clears a group's bytes as one word.
    std::vector<std::uint8_t> state;
    // Contacts of each particle as `first` (the list is sorted by first).
    std::vector<std::uint32_t> first_start;
    // Contacts whose second particle lies in a later force block ("cross"
    // contacts), numbered in list order: first slot of each block, and per
    // particle the slots it receives (increasing).
    std::vector<std::uint32_t> cross_block_start, cross_row_start, cross_row_slot;
    // What a cross contact adds to its second particle (force, elastic part, torque).
    std::vector<Array3> cross_force, cross_elastic, cross_torque;
    // Per block, the first block that has a cross contact into it (the block
    // itself if none): the block's rows are complete, and no other block reads
    // them, once the blocks from there to it are done.
    std::vector<std::uint32_t> earliest_source_block;
    // Per block, the last block that it has a contact into (the block itself
    // if none): the rows a block's contacts read lie up to there.
    std::vector<std::uint32_t> latest_target_block;
    // Per candidate, what the last pass gave it, where DEM_STRESS_TENSOR is
    // written (keep_contact_forces_; empty otherwise).
    std::vector<KeptPairForce> kept;
    void Resize(std::size_t n);
    std::size_t HeldBytes() const;
    // first_start and the cross slots of the current list, for n particles in
    // force blocks of block_rows rows.
    void Index(std::size_t n, std::size_t block_rows);
  };
  static constexpr std::uint32_t kNoMaster = 0xffffffffu;  // WallContacts::adm_master: none
  struct WallContacts {
    std::vector<std::uint32_t> particle, face;  // sorted by particle, then face
    std::vector<Array3> tangential_force;
    std::vector<double> tangential_stiffness, normal_elastic_force;
    std::vector<std::uint8_t> sliding, active;
    // As PairContacts::extra_history, for the wall pairs of the run.
    std::vector<ExtraHistoryRow> extra_history;
    bool keeps_extra_history = false;
    std::vector<Array3> force, elastic_force;  // on the particle
    std::vector<Array3> rolling;               // rolling resistance torque on the particle
    std::vector<double> energy;                // normal elastic energy of the last force evaluation
    std::vector<DissipationPower> dissipation;
    std::vector<std::array<double, 4>> weights;  // of the face's vertices at the contact
    std::vector<Array3> normal;                  // from the particle to the face
    std::vector<Array3> point;                   // the contact point on the face
    // The sphere's arm along `normal` (radius less its share of the overlap),
    // sized only where DEM_STRESS_TENSOR is written (keep_contact_forces_).
    std::vector<double> arm;
    // Area Distributed Method (WallForceTransfer::kAreaDistributed), of the
    // last force evaluation: per candidate face the sphere reaches, the
    // candidate whose force it carries (kNoMaster: none) and its share of it
    // (A_e / A_m); `weights` then holds the shape functions at the face's
    // intersection centroid.
    std::vector<std::uint32_t> adm_master;
    std::vector<double> adm_fraction;
    // 1 where a contact's force went out through its faces' shares (its
    // master area was positive), 0 where it keeps direct interpolation.
    std::vector<std::uint8_t> adm_distributed;
    // ADM with DemSettings::adm_energy_gradient (adm_energy_gradient.cpp), of
    // the last force evaluation, sized only in such runs: per candidate, the
    // part of its force on the sphere that is the stored energy's gradient
    // (its reaction reaches the nodes as adm_vertex_force, not by the
    // shares), and the force on each vertex of its face, -∂U/∂x_vertex.
    std::vector<Array3> adm_gradient_force;
    std::vector<std::array<Array3, 4>> adm_vertex_force;
    std::vector<std::uint32_t> particle_start;  // candidates of each particle
    void Resize(std::size_t n);
    std::size_t HeldBytes() const;
  };

  void Search(double time);
  // Adaptive search: whether the candidates of the last search may miss a
  // contact at this step's force evaluation (the class comment). The rows'
  // positions are those of the force evaluation, except with
  // `before_drift` (Velocity Verlet before its kick and drift), where the
  // step's drift is bounded by Δt (|v| + c Δt/2 |F|/m) at its largest.
  // Keeps the largest wall displacement since the search (wall_displacement_).
  bool CandidatesMayMissContacts(bool before_drift);
  // Whether any adaptive trigger is armed (a positive tolerance of its kind).
  bool AdaptiveSearchArmed() const;
  // The positions of the rows and wall vertices the last search saw.
  void RememberSearchPositions();
  // A sphere with a non-finite position or velocity (a run that blew up,
  // usually a time step too large for the contact stiffness) is an error
  // naming it, the step and the time; checked at every search (O(n), as the
  // search itself).
  void CheckFiniteState(double time) const;
  // Rows and nodes: the columns shared where the layout lets them
  // (DemTuning::share_rows_with_nodes), after anything that changes rows or
  // nodes; at each entry from outside, shared columns follow the database's
  // storage (RefreshSharedRows).
  void ShareRowsWithNodes();
  void RefreshSharedRows();
  // Whether LayOutNodesAsRows may reorder the spheres' nodes.
  bool MayLayOutNodes() const;
  // Sorts the rows in space and renumbers everything that refers to rows (the
  // contact lists, which stay sorted, glued particles, clusters); called at the
  // start of Search, whose merge then carries the histories to the new lists.
  void SortRows();
  // Reorders the rows (row order[k] becomes row k) and renumbers everything
  // that refers to rows, as SortRows does with its spatial order. Rows absent
  // from `order` are removed (their elements, nodes and contacts, as by
  // RemoveParticles) in the same pass: one gather of every column and of the
  // nodal database instead of two (the distributed run's rows at a search).
  void ReorderRows(const std::vector<std::uint32_t>& order);
  // Reorders the spheres' nodes in their database as the rows (row k's node at
  // position k), so that the node synchronisation reads and writes both in
  // sequence; the nodes with drop[i] set (rows removed) are removed with it.
  void LayOutNodesAsRows(const std::vector<std::uint8_t>& drop = {});
  // Deletes the spheres, and the clusters with all their members, outside the
  // bounding box when it is active at `time`; true when anything was deleted.
  bool RemoveOutsideBoundingBox(double time);
  // The kick of length h that a body with virtual mass takes (c h: c F/m over h).
  double VirtualMassKick(double h) const { return settings_.virtual_mass_coefficient * h; }
  // x_j - x_i, to the nearest periodic image in a periodic domain.
  Array3 Separation(std::size_t i, std::size_t j) const {
    const Array3 d = particles_.position[j] - particles_.position[i];
    return settings_.periodic ? periodic_.Nearest(d) : d;
  }
  // Periodic domain: the rows' positions moved by whole periods into the box.
  void WrapIntoPeriodicBox(std::size_t first = 0);
  // RemoveBallsInitiallyTouchingWalls (Initialize): deletes the spheres in
  // contact with a wall face and searches again.
  void RemoveParticlesTouchingWalls(double time);
  // Drops the candidate pairs of two members of one cluster.
  void DropIntraClusterPairs(std::vector<std::uint32_t>& first,
                             std::vector<std::uint32_t>& second) const;
  // Candidates of rows first_new.. (just appended) merged into the contact lists.
  void AddCandidatesOfNewRows(std::size_t first_new);
  // Rows first_new.. just appended: weight as their force, wrapped into a
  // periodic box, their candidates merged (unless a search follows), the
  // columns shared again.
  void StartNewRows(std::size_t first_new, bool search_follows = false);
  void RemoveParticles(const std::vector<std::uint8_t>& keep);
  // Continuum strategy: the bond table and the bonds of the rows as they are now.
  void CreateContinuumBonds();
  void WriteBondResultsToNodes();
  // DEM_STRESS_TENSOR from the bonds' and the contacts' forces of the force
  // pass that just ran (particle_stress.cpp): written by the pass, so that the
  // nodes hold its value until the next one (searches, inserted rows and
  // restarts change the lists the pass kept its forces in).
  void WriteStressTensorToNodes();
  void CleanInitialIndentations();
  // pair_arrays_ and the batch law from table_ (materials below
  // particle_materials are particle materials).
  void FillPairArrays(std::size_t particle_materials);

  // What GatherForces does to each row once its forces are summed.
  // (kCorrect: Gear's correction, strategies/gear_scheme.h.)
  enum class AfterGather : std::uint8_t { kNothing, kKick, kIntegrate, kCorrect };
  // After the forces: the clusters' loads, then what `then` asks (kick or whole step).
  void AdvanceClusters(AfterGather then);
  // `drift`: Velocity Verlet's first half kick and drift is done in the pair
  // pass (DriftInPairPass), not before it.
  void ComputeForces(AfterGather then = AfterGather::kNothing, bool drift = false);
  // Each row starts from its wall contacts. Where `finish` (finish_blocks_), a
  // block whose rows are complete is finished (FinishRows) at once, while its
  // rows are in cache; GatherForces finishes the others. Where `drift`, the
  // blocks are kicked and drifted (KickAndDriftRow) just before the first
  // block that reads them, on one thread, in block order.
  void ComputeParticleContacts(bool finish, AfterGather then, bool drift);
  // Rows [begin, end) of a force block start from their wall contacts
  // (ComputeWallContacts): contact force, elastic part and torque, zero for a
  // row without wall candidates.
  void StartRowsFromWallContacts(std::size_t begin, std::size_t end);
  // Whether this Velocity Verlet step may kick and drift the rows inside the
  // pair pass: one thread (blocks in order), and no search, clusters or
  // periodic wrap between the drift and the forces. Every row is drifted by
  // the end of the pass, before bonds or GatherForces read them.
  bool DriftInPairPass(bool search) const;
  // The wall contacts of particle i, summed into force, elastic and torque.
  // `features` is scratch for the closest feature of each candidate face in
  // this step, before the Double Hierarchy makes them contacts (one sphere's
  // candidates at a time, so it stays in cache).
  void ComputeWallContacts(std::size_t i, std::vector<FaceContactGeometry>& features, Array3& force,
                           Array3& elastic, Array3& torque);
  // Rows [begin, end): cross slots, gravity and background damping, then `then`.
  void FinishRows(std::size_t begin, std::size_t end, AfterGather then);
  // FinishRows' loop with update(rows, constants, i) after each row's sums:
  // compiled once per update and scheme, with no branch on them per row.
  // Four rows at a time (row_quads.h) where `quads` and the rows allow, with
  // quad_update the quads' counterpart of `update`.
  template <class RowUpdate>
  void FinishRowRange(std::size_t begin, std::size_t end, RowUpdate update, bool quads,
                      QuadUpdate quad_update);
  void GatherForces(AfterGather then);  // FinishRows of every row not finished yet
  // Before the forces: VV's first half (KickAndDriftRow) or Gear's prediction.
  void KickAndDrift();
  // Gear: sizes the rows' derivative columns and starts them from the forces
  // just computed (GearStartRow); refuses what the scheme does not move.
  void StartGear();
  // Under Gear, rows first.. start from their forces (GearStartRow).
  void StartGearRows(std::size_t first);
  IntegrationConstants Integration() const;
  bool QuadRowUpdates() const;  // the setting, where the processor runs them
  // ADM with adm_energy_gradient (adm_energy_gradient.cpp): the energy U
  // particle i's skin contacts store and the correction of its masters'
  // forces (rows begin..end of the wall contacts) so that their sum is
  // minus U's gradient, with the faces' vertex forces.
  // Per candidate face k of the sphere, what U takes from it: the area A_k it
  // cuts (0: none) with its derivatives, the unit normal from the centre
  // towards its plane (the side of the plane the centre is on: -1 or 1),
  // the plane's distance and the face's nearest point's (its closest
  // feature); and U's derivatives with respect to each of them.
  struct AdmFaceTerms {
    std::vector<double> area, plane_distance, nearest_distance, side;
    std::vector<Array3> towards;
    std::vector<std::uint8_t> cut;
    std::vector<SphereFaceAreaGradient> area_gradient;
    std::vector<FaceContactGeometry> nearest;
    std::vector<double> d_area, d_plane_distance, d_nearest_distance;
    std::vector<Array3> d_towards;
    void Resize(std::size_t n) {
      area.resize(n), plane_distance.resize(n), nearest_distance.resize(n), side.resize(n);
      towards.resize(n), cut.resize(n), area_gradient.resize(n), nearest.resize(n);
      d_area.resize(n), d_plane_distance.resize(n), d_nearest_distance.resize(n);
      d_towards.resize(n);
    }
  };
  // Candidate k's terms at the particle's position.
  void AdmFaceTerm(std::size_t i, std::size_t k, AdmFaceTerms& terms);
  // U from the terms, and its derivatives with respect to them (the d_ columns).
  double AdmEnergyOfTerms(std::size_t i, AdmFaceTerms& terms);
  void CorrectAdmForcesToEnergyGradient(std::size_t i, Array3& force, Array3& elastic);
  // Wall contact row c's forces on the vertices of its face (WriteToNodes,
  // and the owned rows' loads under MPI): its share of its master's force
  // under ADM or its own force, spread with the weights, plus, under
  // adm_energy_gradient, the vertex forces of the stored energy. False where
  // the row carries nothing.
  bool WallRowVertexLoads(std::size_t c, std::array<Array3, 4>& total,
                          std::array<Array3, 4>& elastic) const;
  // features[c - first candidate]: this step's closest features of the particle's candidates.
  void CarryWallHistoryAcrossFaces(std::size_t particle, const FaceContactGeometry* features);
  // Free walls: the particles' contact force and moment on each body, summed
  // in contact-list order (deterministic), from the last force evaluation.
  void CollectFreeWallLoads();
  // Their motion with the loads of the last force evaluation: the whole step
  // for the one-force schemes (after the forces, like the particles), the
  // first half kick and the drift for Velocity_Verlet (before the forces).
  void AdvanceFreeWalls(double time);
  void AccumulateDissipation();  // energy_calculation: power of the last evaluation × Δt
  // counted_rows_ as a row mask (null: every row), checked against the rows.
  const std::uint8_t* CountedRows() const;
  void ThrowPendingError();
  // Dimension 2: the set-up a planar run needs (one plane, in-plane motion, 2D laws).
  void CheckPlanarSetup() const;

  ModelPart& spheres_;
  ModelPart* walls_;
  DemSettings settings_;
  ParticleStorage particles_;
  RigidFaceStorage faces_;
  // The faces this rank's wall searches see (a distributed run's skin walls:
  // DistributedDem::SearchWallsNearDomain); inactive, every face.
  WallSearchRegion wall_region_;
  // Per face row, 1 where the face is read from its nodes by
  // SearchHooks::place_walls instead of at the step's start (a distributed
  // coupled run's skin, DistributedDem::PlaceSkinInStep); empty: none.
  std::vector<std::uint8_t> deferred_faces_;
  std::vector<ImposedWallMotion> wall_motions_;
  std::vector<FreeRigidWall> free_walls_;
  std::vector<int> face_free_wall_;  // per face row, its free wall or -1
  // The walls' nodes that are vertices of a face row, each once, sorted
  // (WriteToNodes writes their nodal results).
  std::vector<IndexType> face_vertex_nodes_;
  // Per face row, its vertices' shares of the normal force (WriteToNodes).
  std::vector<std::array<double, 4>> face_normal_shares_;
  GluedParticles glued_;
  ModelPart* clusters_part_ = nullptr;  // root of the cluster model part, or null
  RigidClusters clusters_;
  BondTable bond_table_;
  ContinuumBonds bonds_;
  BondPower bond_power_;          // of the last force evaluation
  std::vector<int> face_sticky_;  // per face row, its sticky wall (glued_.walls) or -1
  // Per face row, 1 where its contacts use the Area Distributed Method
  // (DemSettings::wall_force_transfer, area_distributed_walls); whether any does.
  std::vector<std::uint8_t> face_area_distributed_;
  bool area_distribution_ = false;
  MaterialIndex material_index_;
  // RegisterParticleMaterial: materials and smallest radii of particles to come.
  std::vector<std::pair<const Properties*, double>> registered_materials_;
  std::vector<IdType> particle_material_order_;  // SetParticleMaterialOrder
  bool given_member_ids_ = false;                // SetClusterMemberIds
  ClusterMemberIds cluster_member_ids_;
  InitialShrinksProvider initial_shrinks_;  // SetInitialShrinks
  // For initial_shrinks_: the spheres RemoveParticlesTouchingWalls deleted.
  std::vector<IdType> deleted_touching_walls_;
  GlobalBondCounts global_bond_counts_;  // SetGlobalBondCounts
  MaterialTable table_;
  // Per material: a wall material (one first used by a wall), as table_ was built.
  std::vector<bool> is_wall_material_;
  // The pair table as arrays per material pair (a * materials + b), derived
  // from table_ once, for both pair loops: among them the share of the
  // overlap taken by the sphere of material a, E_b / (E_a + E_b) (where the
  // contact point lies), and TangentialDampingFactor. And the one law of all
  // particle pairs when the batch kernel has it (batch_law_valid_).
  PairTableArrays pair_arrays_;
  ContactLaw batch_law_{};  // its id in ContactLaws (contact_laws.h)
  bool batch_law_valid_ = false;
  PeriodicBox periodic_;  // active with settings_.periodic
  NeighbourSearch search_;
  NeighbourSearch insertion_search_;  // around inserted rows (its own grid and buffers)
  PairContacts pairs_;
  WallContacts wall_contacts_;
  // The sphere nodes hold DEM_STRESS_TENSOR: the passes keep each contact's
  // force (PairContacts::kept, WallContacts::arm; set at Initialize).
  bool keep_contact_forces_ = false;
  // WriteStressTensorToNodes' per-row sums (9 moments, the faces), kept
  // between passes for their capacity.
  std::vector<double> stress_moments_;
  std::vector<int> stress_faces_;
  std::vector<double> global_damping_power_;  // per particle, of the last evaluation
  // Per force block: its pair contacts are done; its rows are finished.
  std::vector<std::uint8_t> block_done_, block_finished_;
  // Every pair of materials has a relation, so that the force pass cannot
  // fail and rows may be finished (integrated) during it.
  bool all_pairs_defined_ = false;
  // Per particle, the dissipated powers of the pair contacts where it is
  // `first` (energy_calculation only), of the last evaluation.
  std::vector<DissipationPower> pair_dissipation_;
  EnergyTotals dissipated_;  // only the dissipated_* members are used
  // A distributed run (DistributedDem) counts only the rows its rank owns in
  // Energies() and the dissipated energies: per row 1 where counted, a pair
  // contact by its first sphere, a wall contact by its sphere, so that a sum
  // over the ranks counts each once. Null: every row (a serial run).
  const std::vector<std::uint8_t>* counted_rows_ = nullptr;
  // Whether Energies() counts the free walls (alike on every rank of a
  // distributed run, so counted by one rank only).
  bool counts_free_walls_ = true;
  // A distributed run (DistributedDem): whether some rank holds clusters
  // (voted at each search), so that the choices the serial run makes by
  // whether it has clusters are the run's on every rank (ClustersInRun).
  bool clusters_on_any_rank_ = false;
  // Whether the run has rigid clusters: this rank's, or any rank's in a
  // distributed run. What decides the form of a step (drift in the pair
  // pass, the search's bound, the relative displacement) asks this, not
  // clusters_.empty(), so every rank steps as the serial run does.
  bool ClustersInRun() const { return !clusters_.empty() || clusters_on_any_rank_; }
  // What the searches fill (candidate pairs; after a search, the replaced
  // lists), the same for the particle-face candidates, and the map from new
  // to old contacts (or a sort's order). Kept with their capacity from one
  // search to the next, which fills them again: memory a search would
  // otherwise take fresh from the system, page by page.
  std::vector<std::uint32_t> scratch_first_, scratch_second_, scratch_cursor_;
  std::vector<std::uint32_t> wall_scratch_particle_, wall_scratch_face_;
  // Candidates (pairs and particle-face) of the longest lists since the heap
  // last gave its free memory back (Search).
  std::size_t longest_lists_ = 0;
  // A contact of a pair without material relation, found inside a parallel loop.
  std::int64_t pending_pair_error_ = -1, pending_wall_error_ = -1;
  int step_ = 0;
  // Rows' positions and face vertices at the last search (adaptive search);
  // rows inserted since start from their insertion position.
  std::vector<Array3> search_position_;
  std::vector<std::array<Array3, 4>> search_face_points_;
  // The largest wall vertex displacement since the last search, as far as
  // the steps since have measured it (CandidatesMayMissContacts).
  double wall_displacement_ = 0.0;
  std::size_t searches_ = 0, early_searches_ = 0;
  // Symplectic Euler: the last integration made every row's increments its
  // velocity and spin times Δt (Δx = v Δt, Δθ = ω Δt), and no row was
  // inserted since (RelativeDisplacementIsVelocityStep).
  bool increments_are_velocity_steps_ = false;
  int last_sort_step_ = 0;  // the step of the last SortRows
  bool sorted_once_ = false;
  bool initialized_ = false;
  PhaseTimings timings_;
  SearchHooks hooks_;
};

}  // namespace tessera::dem
