// ExplicitSolverStrategy: its construction, its set-up (Initialize) and the
// step itself (SolveSolutionStep), which reads as the thesis' step (§2,
// Fig. 2.1): predict (Velocity Verlet's half kick and drift), search, forces,
// correct (the update of every row). The passes each stage runs live in files
// of their own, all members of this one class (see dem_strategy.h):
//   contact_lists.cpp       the search, the contact lists and the carry-over of
//                           their histories (history_carry_over.h), the adaptive
//                           search's test
//   pair_contact_pass.cpp   sphere-sphere forces, force block by force block
//   wall_contact_pass.cpp   sphere-wall forces: closest features, Distance
//                           Hierarchy, Area Distributed Method, the free walls' loads
//   integration.cpp         finishing the rows (sums, gravity, damping) and the
//                           schemes' updates; clusters and free walls
//   particle_lifecycle.cpp  insertion, removal, bounding box, periodic wrap
//   spatial_sort.cpp        the rows sorted in space, the nodes laid out as the rows
//   node_sync.cpp           rows <-> nodes (ReadFromNodes, WriteToNodes)
//   measures.cpp            energies, time-step estimate, contact counts, memory
#include "applications/dem/strategies/dem_strategy.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "applications/dem/dem_variables.h"
#include "applications/dem/particles/initial_overlaps.h"
#include "kernel/core/error.h"
#include "kernel/core/heap.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {

ExplicitSolverStrategy::ExplicitSolverStrategy(ModelPart& spheres, ModelPart* walls,
                                               DemSettings settings)
    : spheres_(spheres.GetRootModelPart()),
      walls_(walls ? &walls->GetRootModelPart() : nullptr),
      settings_(settings) {
  SetDeltaTime(settings_.delta_time);
  if (settings_.tuning.sort_rows_frequency < 0)
    TESSERA_ERROR("sort_rows_frequency must be >= 0 (0: never sort), got ",
                  settings_.tuning.sort_rows_frequency);
  if (settings_.tuning.force_block_rows < 1)
    TESSERA_ERROR("force_block_rows must be >= 1, got ", settings_.tuning.force_block_rows);
  if (settings_.search_frequency < 1)
    TESSERA_ERROR("NeighbourSearchFrequency must be >= 1, got ", settings_.search_frequency);
  if (settings_.search_tolerance < 0.0 || settings_.wall_search_tolerance < 0.0)
    TESSERA_ERROR("search tolerances must be >= 0 (SearchTolerance ", settings_.search_tolerance,
                  ", search_tolerance_against_walls ", settings_.wall_search_tolerance, ")");
  if (settings_.periodic) {
    // 2D discs stay in their plane: periodic along x and y only.
    const std::array<bool, 3> axes{true, true, settings_.dimension != 2};
    for (int k = 0; k < 3; ++k)
      if (axes[k] && !(settings_.bounding_box_max[k] > settings_.bounding_box_min[k]))
        TESSERA_ERROR(
            "PeriodicDomainOption: the bounding box is the periodic domain, but its side ", k,
            " is empty (BoundingBoxMin ", settings_.bounding_box_min[k], ", BoundingBoxMax ",
            settings_.bounding_box_max[k], ")");
    periodic_ = PeriodicDomainOf(settings_);
  }
  if (!(settings_.virtual_mass_coefficient > 0.0 && settings_.virtual_mass_coefficient <= 1.0))
    TESSERA_ERROR("VirtualMassCoefficient must be in (0, 1] (it scales the accelerations), got ",
                  settings_.virtual_mass_coefficient);
  if (!(settings_.global_damping >= 0.0 && settings_.global_damping < 1.0))
    TESSERA_ERROR("GlobalDamping must be in [0, 1), got ", settings_.global_damping);
  if (settings_.dimension != 2 && settings_.dimension != 3)
    TESSERA_ERROR("the DEM dimension must be 2 (discs) or 3 (spheres), got ", settings_.dimension);
  if (settings_.dimension == 2 && settings_.gravity[2] != 0.0)
    TESSERA_ERROR("a 2D DEM run moves in the x-y plane: GravityZ must be 0, got ",
                  settings_.gravity[2]);
}

void ExplicitSolverStrategy::SetInitialShrinks(InitialShrinksProvider provider) {
  if (initialized_) TESSERA_ERROR("SetInitialShrinks: the DEM strategy is initialised already");
  initial_shrinks_ = std::move(provider);
}

void ExplicitSolverStrategy::SetClusterMemberIds(ClusterMemberIds ids) {
  if (initialized_) TESSERA_ERROR("SetClusterMemberIds: the DEM strategy is initialised already");
  given_member_ids_ = true;
  cluster_member_ids_ = std::move(ids);
}

void ExplicitSolverStrategy::SetGlobalBondCounts(GlobalBondCounts counts) {
  if (initialized_) TESSERA_ERROR("SetGlobalBondCounts: the DEM strategy is initialised already");
  global_bond_counts_ = std::move(counts);
}

void ExplicitSolverStrategy::SetDeltaTime(double dt) {
  if (!(dt > 0.0) || !std::isfinite(dt)) TESSERA_ERROR("the DEM time step must be > 0, got ", dt);
  settings_.delta_time = dt;
}

void ExplicitSolverStrategy::SetClusterModelPart(ModelPart& clusters) {
  if (initialized_)
    TESSERA_ERROR(
        "SetClusterModelPart: the DEM strategy is initialised already; give the "
        "cluster model part before Initialize()");
  clusters_part_ = &clusters.GetRootModelPart();
}

void ExplicitSolverStrategy::Initialize() {
  DeclareParticleVariables(spheres_);
  keep_contact_forces_ = spheres_.Nodal().HasHistoricalVariable(DEM_STRESS_TENSOR);
  clusters_ = RigidClusters{};
  if (clusters_part_ != nullptr && clusters_part_->NumberOfElements() > 0) {
    if (given_member_ids_)
      CreateClusterSpheres(*clusters_part_, spheres_, 0, 0, settings_.dimension, clusters_,
                           &cluster_member_ids_);
    else
      CreateClusterSpheresAfterIds(*clusters_part_, spheres_, {&spheres_, walls_, clusters_part_},
                                   settings_.dimension, clusters_);
  }
  // (After the clusters' spheres: their materials are the spheres' then,
  // those of the clusters a piece does not hold the cluster model part's.)
  material_index_ = MaterialIndex();
  for (IdType id : particle_material_order_)
    material_index_.IndexOf(spheres_.HasProperties(id) || clusters_part_ == nullptr
                                ? spheres_.GetProperties(id).get()
                                : clusters_part_->GetProperties(id).get());
  FillParticles(spheres_, material_index_, particles_, settings_.dimension);
  if (!particle_material_order_.empty() &&
      material_index_.size() != particle_material_order_.size())
    TESSERA_ERROR("the distributed start: the spheres of '", spheres_.FullName(), "' use ",
                  material_index_.size() - particle_material_order_.size(),
                  " Properties beyond the run's particle materials (SetParticleMaterialOrder)");
  if (!clusters_.empty()) AttachClusterRows(clusters_, particles_);
  for (const auto& [properties, radius] : registered_materials_)
    material_index_.IndexOf(properties);
  const std::size_t particle_materials = material_index_.size();
  faces_ = RigidFaceStorage{};
  face_vertex_nodes_.clear();
  glued_ = GluedParticles{};
  face_sticky_.clear();
  if (walls_) {
    for (const VariableBase* variable : std::initializer_list<const VariableBase*>{
             &VELOCITY, &DISPLACEMENT, &CONTACT_FORCES, &ELASTIC_FORCES, &TANGENTIAL_ELASTIC_FORCES,
             &DEM_PRESSURE, &SHEAR_STRESS, &DEM_NODAL_AREA})
      if (!walls_->HasNodalSolutionStepVariable(*variable))
        walls_->AddNodalSolutionStepVariable(*variable);
    FillRigidFaces(*walls_, material_index_, faces_, settings_.dimension);
    for (std::size_t f = 0; f < faces_.size(); ++f)
      for (int k = 0; k < faces_.vertex_count[f]; ++k)
        face_vertex_nodes_.push_back(faces_.nodes[f][k]);
    std::sort(face_vertex_nodes_.begin(), face_vertex_nodes_.end());
    face_vertex_nodes_.erase(std::unique(face_vertex_nodes_.begin(), face_vertex_nodes_.end()),
                             face_vertex_nodes_.end());
    wall_motions_ = ReadImposedWallMotions(*walls_);
    free_walls_ = ReadFreeRigidWalls(*walls_, settings_.walls_moved_by_processes);
    face_free_wall_ = FreeWallOfFaces(free_walls_, faces_, walls_->Nodal().Size());
    if (!free_walls_.empty()) {
      // The nodes take the initial velocities of their bodies.
      for (const FreeRigidWall& body : free_walls_) PlaceFreeWallNodes(*walls_, body);
      UpdateRigidFaces(*walls_, faces_);
    }
    glued_.walls = ReadStickyWalls(*walls_, wall_motions_, free_walls_);
    face_sticky_ = StickyWallOfFaces(glued_.walls, faces_);
  }
  face_area_distributed_ =
      walls_ ? AreaDistributedFaces(*walls_, faces_, settings_.wall_force_transfer,
                                    settings_.area_distributed_walls)
             : std::vector<std::uint8_t>{};
  if (!walls_ && !settings_.area_distributed_walls.empty())
    TESSERA_ERROR("DEM settings: area_distributed_walls lists ",
                  settings_.area_distributed_walls.front(), ", but the analysis has no walls");
  area_distribution_ = std::find(face_area_distributed_.begin(), face_area_distributed_.end(),
                                 std::uint8_t{1}) != face_area_distributed_.end();
  // A material used by both particles and walls counts as a particle material.
  is_wall_material_.assign(material_index_.size(), false);
  for (std::size_t k = particle_materials; k < is_wall_material_.size(); ++k)
    is_wall_material_[k] = true;
  table_.Build(material_index_.List(), is_wall_material_, settings_.rolling_friction,
               settings_.hertz_damping, settings_.linear_stiffness);
  CheckPlanarSetup();
  FillPairArrays(particle_materials);

  pairs_ = PairContacts{};
  wall_contacts_ = WallContacts{};
  // The side tables of extra history (contact_force.h): only where a pair of
  // this run's materials has a law that keeps one.
  if constexpr (kExtraHistoryDoubles > 0) {
    for (std::size_t a = 0; a < particle_materials; ++a)
      for (std::size_t b = 0; b < table_.size(); ++b) {
        const PairParameters& pair = table_.Pair(static_cast<int>(a), static_cast<int>(b));
        const PairParameters& wall = table_.WallPair(static_cast<int>(a), static_cast<int>(b));
        if (b < particle_materials && pair.defined && LawKeepsExtraHistory(pair.law))
          pairs_.keeps_extra_history = true;
        if (wall.defined && LawKeepsExtraHistory(wall.law))
          wall_contacts_.keeps_extra_history = true;
      }
  }
  sorted_once_ = false;
  searches_ = early_searches_ = 0;
  const double time = spheres_.GetProcessInfo().GetValue(TIME);
  if (settings_.periodic) {
    search_.SetPeriodicBox(periodic_);
    insertion_search_.SetPeriodicBox(periodic_);
    WrapIntoPeriodicBox();
  }
  RemoveOutsideBoundingBox(time);
  Search(time);
  if (settings_.remove_embedded) {
    // A sphere wholly inside another one is an artefact of the mesher: it is
    // deleted before anything else happens.
    bool any = false;
    const std::vector<std::uint8_t> keep =
        EmbeddedSpheres(pairs_.first, pairs_.second, particles_.position, particles_.radius,
                        particles_.cluster, settings_.periodic ? periodic_ : PeriodicBox{}, any);
    if (any) {
      RemoveParticles(keep);
      Search(time);
    }
  }
  if (settings_.remove_touching_walls) RemoveParticlesTouchingWalls(time);
  if (settings_.clean_indentations) CleanInitialIndentations();
  if (settings_.continuum) {
    CreateContinuumBonds();
    if (!bonds_.empty()) Search(time);  // bonded pairs leave the contact candidates
  }
  // Particles touching a sticky wall now are glued to it; they start with its velocity.
  GlueTouchingParticles(faces_, face_sticky_, wall_contacts_.particle, wall_contacts_.face,
                        particles_, glued_);
  for (std::uint32_t row : glued_.row)
    if (particles_.cluster[row] != 0)
      TESSERA_ERROR("a sphere of Cluster3D element ",
                    clusters_.element_id[particles_.cluster[row] - 1], " touches sticky wall ",
                    glued_.walls[particles_.glued[row] - 1].part,
                    " at the start; gluing clusters to sticky walls is not supported");
  MoveGluedParticles(glued_, wall_motions_, time, time, particles_, /*velocities_only=*/true);
  ComputeForces();
  if (settings_.scheme == TranslationalScheme::kGear) StartGear();
  CollectFreeWallLoads();
  if (settings_.scheme == TranslationalScheme::kGear)
    for (FreeRigidWall& body : free_walls_)
      StartFreeWallGear(body, settings_.gravity, settings_.virtual_mass_coefficient);
  ShareRowsWithNodes();
  ReleaseFreedHeapMemory();  // the rows' own copies of shared columns
  dissipated_ = EnergyTotals{};
  timings_ = PhaseTimings{};  // the profile counts steps, not the set-up
  initialized_ = true;
}

// ---------------------------------------------------------------- the step

void ExplicitSolverStrategy::SolveSolutionStep(double time) {
  if (!initialized_) TESSERA_ERROR("ExplicitSolverStrategy: call Initialize() before solving");
  RefreshSharedRows();
  AdoptElementsAddedToTheModelPart();
  ++step_;
  if (walls_) {
    const ScopedPhase phase(timings_.wall_motion);
    // Imposed wall motion: the walls are placed where they are at the end of
    // the step (Velocity Verlet evaluates its forces there; for the one-force
    // schemes the wall leads the particles by Δt, an O(Δt) error like theirs).
    MoveImposedWalls(*walls_, wall_motions_, time);
    // Glued particles go with their walls (not integrated below).
    if (glued_.size() > 0)
      MoveGluedParticles(glued_, wall_motions_, time - settings_.delta_time, time, particles_);
    if (settings_.scheme == TranslationalScheme::kVelocityVerlet ||
        settings_.scheme == TranslationalScheme::kGear)
      AdvanceFreeWalls(time);
    // Faces a distributed coupled run places inside the step (deferred_faces_)
    // are read by SearchHooks::place_walls, after the search decision.
    if (deferred_faces_.empty())
      UpdateRigidFaces(*walls_, faces_);
    else
      UpdateRigidFacesWhere(*walls_, faces_, deferred_faces_, 0);
  }
  // Kratos' cadence (see dem_strategy.h): its search operations run at the
  // steps with (step + 1) % NeighbourSearchFrequency == 0, and the bounding box
  // deletes there, before the search. Between searches no new contact is found,
  // so the cadence shows in results wherever the search tolerance does not
  // cover a step's approach; the adaptive search searches earlier where it
  // might not (positions of this step's force evaluation against the last
  // search's). The bounding box keeps Kratos' cadence.
  const bool cadence = (step_ + 1) % settings_.search_frequency == 0;
  const bool adaptive = !cadence && AdaptiveSearchArmed();
  bool early = false;
  // The check is timed with the search it decides on (GetTimings).
  // In a distributed run every rank searches where any rank would (SearchHooks).
  const auto moved_too_far = [this](bool before_drift) {
    bool local = false;
    {
      const ScopedPhase phase(timings_.search_particles);
      local = CandidatesMayMissContacts(before_drift);
    }
    return hooks_.vote ? hooks_.vote(local) : local;
  };
  if (MovesBeforeForces(settings_.scheme)) {
    // The forces are evaluated after the drift (Gear: after the prediction,
    // which KickAndDrift makes, and AdvanceFreeWalls for free walls; no
    // clusters, StartGear). Under
    // Velocity Verlet without clusters or a periodic box the drift may be done
    // inside the pair pass, after the search, so the decision bounds it
    // instead of waiting for it: on any thread count (the pass drifts only on
    // one thread), so that the same steps search whatever the threads.
    const bool predict = settings_.scheme == TranslationalScheme::kVelocityVerlet &&
                         !settings_.periodic && !ClustersInRun();
    if (adaptive && predict) early = moved_too_far(/*before_drift=*/true);
    // Where it may, the pair pass kicks and drifts each block just before it
    // reads it: one pass over the rows fewer.
    const bool drift_in_pass = DriftInPairPass(cadence || early);
    if (!drift_in_pass) KickAndDrift();
    if (settings_.periodic) WrapIntoPeriodicBox();
    if (adaptive && !predict) early = moved_too_far(/*before_drift=*/false);
    if (hooks_.place_walls) hooks_.place_walls(cadence || early);
    if ((cadence || early) && hooks_.before_search) hooks_.before_search();
    if (cadence) RemoveOutsideBoundingBox(time);
    if (cadence || early) {
      early_searches_ += early ? 1 : 0;
      Search(time);
      if (hooks_.after_search) hooks_.after_search();
    }
    ComputeForces(
        settings_.scheme == TranslationalScheme::kGear ? AfterGather::kCorrect : AfterGather::kKick,
        drift_in_pass);
    if (settings_.energy_calculation) AccumulateDissipation();
    CollectFreeWallLoads();
    for (FreeRigidWall& body : free_walls_) {
      // Second half kick with the forces at the new positions; the nodes get
      // the new velocities (their positions do not change). Gear: the
      // correction, which moves the centre too.
      if (settings_.scheme == TranslationalScheme::kGear)
        GearCorrectFreeWall(body, settings_.gravity, settings_.virtual_mass_coefficient,
                            settings_.delta_time, time);
      else
        KickFreeWall(body, settings_.gravity, VirtualMassKick(0.5 * settings_.delta_time), time);
      PlaceFreeWallNodes(*walls_, body);
    }
  } else {
    // The forces are evaluated where the rows are now.
    if (adaptive) early = moved_too_far(/*before_drift=*/false);
    if (hooks_.place_walls) hooks_.place_walls(cadence || early);
    if ((cadence || early) && hooks_.before_search) hooks_.before_search();
    if (cadence) RemoveOutsideBoundingBox(time);
    if (cadence || early) {
      early_searches_ += early ? 1 : 0;
      Search(time);
      if (hooks_.after_search) hooks_.after_search();
    }
    ComputeForces(AfterGather::kIntegrate);
    increments_are_velocity_steps_ = settings_.scheme == TranslationalScheme::kSymplecticEuler;
    if (settings_.periodic) WrapIntoPeriodicBox();
    if (settings_.energy_calculation) AccumulateDissipation();
    CollectFreeWallLoads();
    AdvanceFreeWalls(time);  // with the particles: both states are at `time`
  }
}

void ExplicitSolverStrategy::ComputeForces(AfterGather then, bool drift) {
  PhaseClock clock;
  // Rows may be finished within the pair pass unless bonds add to them after
  // it, or the pass may end in an error (a pair without relation), which must
  // leave every row as it was.
  const bool finish = bonds_.empty() && all_pairs_defined_;
  if (area_distribution_) {
    // Written per candidate by the wall pass (ComputeWallContacts), rows in parallel.
    wall_contacts_.adm_master.resize(wall_contacts_.particle.size());
    wall_contacts_.adm_fraction.resize(wall_contacts_.particle.size());
    wall_contacts_.adm_distributed.resize(wall_contacts_.particle.size());
    const std::size_t gradient_rows =
        settings_.adm_energy_gradient ? wall_contacts_.particle.size() : 0;
    wall_contacts_.adm_gradient_force.resize(gradient_rows);
    wall_contacts_.adm_vertex_force.resize(gradient_rows);
  }
  ComputeParticleContacts(finish, then, drift);  // the wall contacts included, row by row
  if (!bonds_.empty()) {
    // As the pair contacts (ComputeParticleContacts): under Velocity Verlet the
    // step's relative displacement is the relative velocity times Δt.
    const bool velocity_step =
        settings_.scheme == TranslationalScheme::kVelocityVerlet && settings_.rotation && step_ > 0;
    // The dissipated powers only where the energies are kept (AccumulateDissipation).
    bond_power_ =
        AddBondForces(bonds_, bond_table_, particles_, periodic_, settings_.delta_time,
                      velocity_step, settings_.energy_calculation, settings_.tuning.batched_bonds);
  }
  // While the kept forces are those of this pass's lists (a search, inserted
  // rows or a restart change the lists before the next pass).
  if (keep_contact_forces_) WriteStressTensorToNodes();
  clock.Lap(timings_.forces);
  ThrowPendingError();
  GatherForces(then);
  if (!clusters_.empty()) AdvanceClusters(then);
  clock.Lap(timings_.integration);
}

void ExplicitSolverStrategy::ThrowPendingError() {
  if (pending_pair_error_ >= 0) {
    const auto c = static_cast<std::size_t>(pending_pair_error_);
    const std::uint32_t i = pairs_.first[c], j = pairs_.second[c];
    pending_pair_error_ = -1;
    TESSERA_ERROR("particles (elements ", particles_.element_id[i], " and ",
                  particles_.element_id[j], ") touch, but ",
                  table_.DescribeMissingPair(particles_.material[i], particles_.material[j]));
  }
  if (pending_wall_error_ >= 0) {
    const auto c = static_cast<std::size_t>(pending_wall_error_);
    const std::uint32_t p = wall_contacts_.particle[c], f = wall_contacts_.face[c];
    pending_wall_error_ = -1;
    TESSERA_ERROR("particle (element ", particles_.element_id[p], ") touches wall condition ",
                  faces_.condition_id[f], ", but ",
                  table_.DescribeMissingPair(particles_.material[p], faces_.material[f]));
  }
}

// ---------------------------------------------------------------- set-up

void ExplicitSolverStrategy::CheckPlanarSetup() const {
  const bool planar = settings_.dimension == 2;
  const std::size_t nm = table_.size();
  for (std::size_t a = 0; a < nm; ++a)
    for (std::size_t b = 0; b < nm; ++b) {
      const PairParameters& pair = table_.Pair(static_cast<int>(a), static_cast<int>(b));
      if (!pair.defined || IsPlanarLaw(pair.law) == planar) continue;
      TESSERA_ERROR("the material relation of properties ", material_index_.List()[a]->Id(),
                    " and ", material_index_.List()[b]->Id(), " uses ", ContactLawName(pair.law),
                    ", a ", planar ? "3D" : "2D", " law, in a ", planar ? "2D" : "3D", " run; ",
                    planar ? "2D discs use DEM_D_Linear_viscous_Coulomb2D"
                           : "3D spheres use DEM_D_Linear_viscous_Coulomb, "
                             "DEM_D_Hertz_viscous_Coulomb or DEM_D_Linear_classic (or set "
                             "\"Dimension\": 2)");
    }
  if (!planar || particles_.size() == 0) return;
  const double plane = particles_.position[0][2];
  for (std::size_t i = 0; i < particles_.size(); ++i) {
    const Array3& x = particles_.position[i];
    const Array3& v = particles_.velocity[i];
    const Array3& w = particles_.angular_velocity[i];
    if (x[2] != plane)
      TESSERA_ERROR("2D run: the disc of element ", particles_.element_id[i], " lies at z = ", x[2],
                    ", the first one at z = ", plane, "; all discs must lie in one x-y plane");
    if (v[2] != 0.0 || w[0] != 0.0 || w[1] != 0.0)
      TESSERA_ERROR("2D run: the disc of element ", particles_.element_id[i],
                    " has VELOCITY_Z or ANGULAR_VELOCITY_X/_Y nonzero; discs move in the x-y "
                    "plane and spin about z");
  }
}

void ExplicitSolverStrategy::FillPairArrays(std::size_t particle_materials) {
  const std::size_t nm = table_.size();
  PairTableArrays& t = pair_arrays_;
  for (std::vector<double>* column : {&t.young, &t.shear, &t.damping_ratio, &t.defined, &t.share,
                                      &t.tangential_damping, &t.rolling_friction, &t.rolling_model})
    column->assign(nm * nm, 0.0);
  t.friction.assign(2 * nm * nm, 0.0);
  t.pairs.assign(nm * nm, PairParameters{});
  t.any_friction_decay = t.any_rolling = false;
  batch_law_valid_ = true;
  all_pairs_defined_ = true;
  bool first = true;
  for (std::size_t a = 0; a < nm; ++a)
    for (std::size_t b = 0; b < nm; ++b) {
      const PairParameters& pair = table_.Pair(static_cast<int>(a), static_cast<int>(b));
      const std::size_t k = a * nm + b;
      t.young[k] = pair.effective_young;
      t.shear[k] = pair.effective_shear;
      t.damping_ratio[k] = pair.damping_ratio;
      t.friction[2 * k] = pair.static_friction;
      t.friction[2 * k + 1] = pair.dynamic_friction;
      t.pairs[k] = pair;
      t.any_friction_decay = t.any_friction_decay || pair.friction_decay >= 0.0;
      if (pair.rolling_model != RollingFrictionModel::kNone) {
        t.rolling_friction[k] = pair.rolling_friction;
        t.rolling_model[k] = static_cast<double>(pair.rolling_model);
        t.any_rolling = true;
      }
      t.defined[k] = pair.defined ? 1.0 : 0.0;
      // (Two wall materials never meet.)
      if (a < particle_materials || b < particle_materials)
        all_pairs_defined_ = all_pairs_defined_ && pair.defined;
      // The contact point splits the overlap as two springs in series.
      const double ea = table_.Material(static_cast<int>(a)).young;
      const double eb = table_.Material(static_cast<int>(b)).young;
      t.share[k] = ea + eb > 0.0 ? eb / (ea + eb) : 0.5;
      t.tangential_damping[k] = TangentialDampingFactor(pair);
      // Particle pairs only: walls have their own loop.
      if (a >= particle_materials || b >= particle_materials || !pair.defined) continue;
      if (first) batch_law_ = pair.law;
      if (!first && pair.law != batch_law_) batch_law_valid_ = false;
      first = false;
    }
  batch_law_valid_ = batch_law_valid_ && HasPairContactBatch(batch_law_);
}

void ExplicitSolverStrategy::CreateContinuumBonds() {
  if (settings_.dimension != 3)
    TESSERA_ERROR(
        "the continuum strategy bonds 3D spheres; bonded 2D discs are not supported "
        "yet (DemSettings.dimension is ",
        settings_.dimension, ")");
  bond_table_.Build(material_index_.List(), is_wall_material_, table_, settings_.bond_stiffness,
                    settings_.bond_damage);
  std::vector<int> group(particles_.size(), 0);
  std::vector<std::uint8_t> skin;
  NodalDatabase& db = spheres_.Nodal();
  if (db.HasHistoricalVariable(COHESIVE_GROUP)) {
    const auto& column = db.HistoricalColumn(COHESIVE_GROUP);
    for (std::size_t i = 0; i < group.size(); ++i) group[i] = column[particles_.node[i]];
  }
  // SKIN_SPHERE, where a deck gives it (NodalData: historical if declared).
  if (db.HasHistoricalVariable(SKIN_SPHERE)) {
    const auto& column = db.HistoricalColumn(SKIN_SPHERE);
    skin.resize(particles_.size());
    for (std::size_t i = 0; i < skin.size(); ++i) skin[i] = column[particles_.node[i]] != 0.0;
  } else if (db.HasNonHistoricalColumn(SKIN_SPHERE)) {
    skin.assign(particles_.size(), 0);
    for (std::size_t i = 0; i < skin.size(); ++i)
      if (db.HasNonHistorical(SKIN_SPHERE, particles_.node[i]))
        skin[i] = db.NonHistorical(SKIN_SPHERE, particles_.node[i]) != 0.0;
  }
  CreateBonds(particles_, group, skin, bond_table_, settings_.search_tolerance, periodic_, bonds_,
              BondAreaSettings{settings_.bond_area_correction, settings_.bond_area_porosity,
                               global_bond_counts_});
  bonds_.lever_arms = settings_.bond_lever_arms;
  bonds_.broken_bonds = settings_.broken_bonds;
  // Kratos' search makes two spheres neighbours while their spheres of
  // radius R + SearchTolerance meet.
  bonds_.broken_reach = 2.0 * settings_.search_tolerance;
  // WriteBondResultsToNodes reads every bond's force for DEM_STRESS_TENSOR.
  bonds_.keep_force = db.HasHistoricalVariable(DEM_STRESS_TENSOR);
}

}  // namespace tessera::dem
