// The DEM explicit step (see dem_strategy.h).
#include "applications/dem/strategies/dem_strategy.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>
#include <unordered_set>

#include "applications/dem/contact_laws/contact_force.h"
#include "applications/dem/dem_variables.h"
#include "applications/dem/utilities/parallel_rows.h"
#include "applications/dem/utilities/spatial_order.h"
#include "applications/dem/walls/distance_hierarchy.h"
#include "applications/dem/walls/imposed_wall_motion.h"
#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/core/heap.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

// Contact points closer than this (relative to the radius) are one point: the
// slack of the history hand-over between faces when nothing moved.
constexpr double kCoincidentContact = 1e-9;

// Records the first (lowest) index of an error found inside a parallel loop.
void RecordError(std::int64_t& slot, std::int64_t index) {
  std::atomic_ref<std::int64_t> ref(slot);
  std::int64_t current = ref.load();
  while ((current < 0 || index < current) && !ref.compare_exchange_weak(current, index)) {
  }
}

// The pair pass's batch results, one per thread (a few tens of KB, reused).
// Not inlined: inlined, the compiler recomputed the thread-local address (a
// call to __tls_get_addr from this shared library) at every candidate of the
// pair loop, 1.5 % of a packed-bed step.
[[gnu::noinline]] PairContactBatch& ThreadBatch() {
  static thread_local PairContactBatch batch;
  return batch;
}

// The wall contacts' per-sphere scratch, one per thread (as ThreadBatch).
[[gnu::noinline]] std::vector<FaceContactGeometry>& ThreadWallFeatures() {
  static thread_local std::vector<FaceContactGeometry> features;
  return features;
}

// to = from, one component at a time (ComputeWallContacts says why).
[[gnu::always_inline]] inline void StoreComponents(Array3& to, const Array3& from) {
  const double x = from[0], y = from[1], z = from[2];
  to[0] = x;
  to[1] = y;
  to[2] = z;
}

// How far ahead, in rows, the block's first pass fetches the rows of a sphere
// with wall candidates: on the inlet-filled mixer fetching ahead shortened the
// forces phase, and 32 rows and 64 measured alike.
constexpr std::size_t kWallRowsAhead = 32;

// Marks an entry of a new contact list that has no entry in the old one.
constexpr std::uint32_t kFreshContact = std::numeric_limits<std::uint32_t>::max();

// Whether the sources of the kept entries (not kFreshContact) increase with
// c, as those of a new contact list matched to the old one (both sorted by
// pair).
bool SourcesIncrease(const std::vector<std::uint32_t>& source) {
  std::uint32_t next = 0;  // the least source the next kept entry may have
  for (const std::uint32_t s : source) {
    if (s == kFreshContact) continue;
    if (s < next) return false;
    next = s + 1;
  }
  return true;
}

// column[c] <- column[source[c]] for each of `columns`, or a
// value-initialised (zero) entry where source[c] is kFreshContact.
//
// With `in_place` (SourcesIncrease(source)) the columns are rewritten in
// place, without a second copy: with the fresh pages of new columns, page
// faults took up to a quarter of the mixer's search time. Entry c reads
// position s = source[c] and writes position c, in two passes over the
// columns together:
// 1. ascending, the entries with s > c: what this pass wrote before lies
//    below c < s;
// 2. descending, the entries with s < c: pass 1 did not write at s (the
//    entry there would have a source > s, yet below source[c] = s), and this
//    pass wrote only above c; and the fresh entries, zeroed on the way.
// An entry a pass overwrites has been read already: its reader has a source
// above its position (then in pass 1, before it) or below (pass 2, before
// it). Entries with s = c stay where they are.
template <class... T>
void GatherColumns(const std::vector<std::uint32_t>& source, bool in_place,
                   std::vector<T>&... columns) {
  const std::size_t m = source.size();
  if (!in_place) {  // any permutation: through a second column each
    auto gather = [&](auto& column) {
      std::remove_reference_t<decltype(column)> next(m);
      for (std::size_t c = 0; c < m; ++c)
        if (source[c] != kFreshContact) next[c] = column[source[c]];
      column.swap(next);
    };
    (gather(columns), ...);
    return;
  }
  (columns.resize(std::max(columns.size(), m)), ...);
  const std::uint32_t* const from = source.data();
  for (std::size_t c = 0; c < m; ++c)
    if (from[c] != kFreshContact && from[c] > c) ((columns[c] = columns[from[c]]), ...);
  for (std::size_t c = m; c-- > 0;) {
    if (from[c] < c)  // (kFreshContact is never < c)
      ((columns[c] = columns[from[c]]), ...);
    else if (from[c] == kFreshContact)
      ((columns[c] = T{}), ...);
  }
  (columns.resize(m), ...);
}

template <class T>
void GatherColumn(std::vector<T>& column, const std::vector<std::uint32_t>& source) {
  GatherColumns(source, SourcesIncrease(source), column);
}

// The histories (tangential spring, previous stiffness and normal force,
// sliding and active state) of a list whose pairs were just replaced: entry c
// takes those of old entry source[c], or starts fresh (so that a parting
// contact is reset). The `extra` columns (a wall contact's last point, the
// pairs themselves) follow in the same pass. A pair list keeps each history as
// one record (PairHistory), a wall list as columns.
template <class Contacts, class... Extra>
void CarryHistories(Contacts& list, const std::vector<std::uint32_t>& source,
                    std::vector<Extra>&... extra) {
  if constexpr (requires { list.history; })
    GatherColumns(source, SourcesIncrease(source), list.history, list.state, extra...);
  else
    GatherColumns(source, SourcesIncrease(source), list.tangential_force, list.tangential_stiffness,
                  list.normal_elastic_force, list.sliding, list.active, extra...);
}

// source[c]: the entry of the old sorted list (old_a, old_b) with the pair
// (a[c], b[c]) of the new sorted list, or kFreshContact (a merge of the two).
void MatchSortedPairs(const std::vector<std::uint32_t>& old_a,
                      const std::vector<std::uint32_t>& old_b, const std::vector<std::uint32_t>& a,
                      const std::vector<std::uint32_t>& b, std::vector<std::uint32_t>& source) {
  const std::size_t m = a.size(), old_count = old_a.size();
  source.resize(m);
  // A pair as one 64-bit key, first entry high: the lists' order is the keys'
  // order, and one comparison replaces two.
  auto key = [](std::uint32_t first, std::uint32_t second) {
    return std::uint64_t{first} << 32 | second;
  };
  // Past the old list's end: above every key.
  constexpr std::uint64_t kEnd = ~std::uint64_t{0};
  std::size_t old = 0;
  std::uint64_t old_key = old_count > 0 ? key(old_a[0], old_b[0]) : kEnd;
  for (std::size_t c = 0; c < m; ++c) {
    const std::uint64_t new_key = key(a[c], b[c]);
    while (old_key < new_key) {
      ++old;
      old_key = old < old_count ? key(old_a[old], old_b[old]) : kEnd;
    }
    source[c] = old_key == new_key ? static_cast<std::uint32_t>(old) : kFreshContact;
  }
}

// Contacts renumbered by a reordering of the rows: contact c gets the rows
// (a[c], b[c]) and the list is re-sorted by them, carrying the history columns
// and the `extra` ones (what the merge of the next search reads); a and b
// come back sorted, and `order` holds the old position of each contact.
template <class Contacts, class... Extra>
void ResortContacts(Contacts& list, std::vector<std::uint32_t>& a, std::vector<std::uint32_t>& b,
                    std::vector<std::uint32_t>& order, std::vector<Extra>&... extra) {
  const std::size_t m = a.size();
  order.resize(m);
  for (std::size_t c = 0; c < m; ++c) order[c] = static_cast<std::uint32_t>(c);
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    return a[x] < a[y] || (a[x] == a[y] && b[x] < b[y]);
  });
  CarryHistories(list, order, a, b, extra...);
}

}  // namespace

TranslationalScheme TranslationalSchemeFromName(const std::string& name) {
  if (name == "Forward_Euler") return TranslationalScheme::kForwardEuler;
  if (name == "Symplectic_Euler") return TranslationalScheme::kSymplecticEuler;
  if (name == "Taylor_Scheme") return TranslationalScheme::kTaylor;
  if (name == "Velocity_Verlet") return TranslationalScheme::kVelocityVerlet;
  TESSERA_ERROR("unknown TranslationalIntegrationScheme '", name,
                "'; expected Forward_Euler, Symplectic_Euler, Taylor_Scheme or Velocity_Verlet");
}

RotationalScheme RotationalSchemeFromName(const std::string& name) {
  if (name == "Direct_Integration") return RotationalScheme::kDirect;
  if (name == "Quaternion_Integration" || name == "Runge_Kutta")
    return RotationalScheme::kSymplectic;
  TESSERA_ERROR("unknown RotationalIntegrationScheme '", name,
                "'; expected Direct_Integration, Quaternion_Integration or Runge_Kutta");
}

const char* TranslationalSchemeName(TranslationalScheme scheme) {
  switch (scheme) {
    case TranslationalScheme::kForwardEuler:
      return "Forward_Euler";
    case TranslationalScheme::kSymplecticEuler:
      return "Symplectic_Euler";
    case TranslationalScheme::kTaylor:
      return "Taylor_Scheme";
    case TranslationalScheme::kVelocityVerlet:
      return "Velocity_Verlet";
  }
  return "";
}

void ExplicitSolverStrategy::PairContacts::Resize(std::size_t n) {
  first.resize(n);
  second.resize(n);
  history.resize(n);
  state.resize(n);
}

std::size_t ExplicitSolverStrategy::PairContacts::HeldBytes() const {
  return VectorBytes(first, second, history, state, first_start, cross_block_start, cross_row_start,
                     cross_row_slot, cross_force, cross_elastic, cross_torque,
                     earliest_source_block, latest_target_block);
}

std::size_t ExplicitSolverStrategy::WallContacts::HeldBytes() const {
  return VectorBytes(particle, face, tangential_force, tangential_stiffness, normal_elastic_force,
                     sliding, active, force, elastic_force, rolling, energy, dissipation, weights,
                     normal, point, adm_master, adm_fraction, adm_distributed, particle_start);
}

MemoryReport ExplicitSolverStrategy::HeldMemory() const {
  MemoryReport report;
  report.rows = particles_.HeldBytes();
  report.pair_contacts = pairs_.HeldBytes();
  report.wall_contacts = wall_contacts_.HeldBytes();
  report.search = search_.HeldBytes() + insertion_search_.HeldBytes();
  report.scratch = VectorBytes(scratch_first_, scratch_second_, scratch_cursor_,
                               wall_scratch_particle_, wall_scratch_face_);
  report.other =
      VectorBytes(global_damping_power_, pair_dissipation_, search_position_, search_face_points_);
  return report;
}

void ExplicitSolverStrategy::PairContacts::Index(std::size_t n, std::size_t block_rows) {
  const std::size_t m = first.size();
  first_start.assign(n + 1, 0);
  for (std::size_t c = 0; c < m; ++c) ++first_start[first[c] + 1];
  for (std::size_t i = 0; i < n; ++i) first_start[i + 1] += first_start[i];
  // The block of every row, from a table: dividing the row numbers by the
  // block size took up to six 64-bit integer divisions per candidate.
  const std::size_t blocks = (n + block_rows - 1) / block_rows;
  std::vector<std::uint32_t> block_of(n);
  for (std::size_t b = 0; b < blocks; ++b)
    std::fill(block_of.begin() + static_cast<std::ptrdiff_t>(b * block_rows),
              block_of.begin() + static_cast<std::ptrdiff_t>(std::min(n, (b + 1) * block_rows)),
              static_cast<std::uint32_t>(b));
  // Slots of the cross contacts in list order: the list is sorted by first, so
  // each block's slots are contiguous and a block numbers its own from its start.
  cross_block_start.assign(blocks + 1, 0);
  cross_row_start.assign(n + 1, 0);
  earliest_source_block.resize(blocks);
  latest_target_block.resize(blocks);
  for (std::size_t b = 0; b < blocks; ++b)
    earliest_source_block[b] = latest_target_block[b] = static_cast<std::uint32_t>(b);
  for (std::size_t c = 0; c < m; ++c) {
    const std::uint32_t source = block_of[first[c]], target = block_of[second[c]];
    if (source == target) continue;
    ++cross_block_start[source + 1];
    ++cross_row_start[second[c] + 1];
    earliest_source_block[target] = std::min(earliest_source_block[target], source);
    latest_target_block[source] = std::max(latest_target_block[source], target);
  }
  for (std::size_t b = 0; b < blocks; ++b) cross_block_start[b + 1] += cross_block_start[b];
  for (std::size_t i = 0; i < n; ++i) cross_row_start[i + 1] += cross_row_start[i];
  const std::size_t slots = cross_row_start[n];
  cross_row_slot.resize(slots);
  cross_force.resize(slots);
  cross_torque.resize(slots);
  // (cross_elastic is sized by the force evaluation, which knows whether the
  // elastic forces are summed.)
  std::vector<std::uint32_t> cursor(cross_row_start.begin(), cross_row_start.end() - 1);
  std::uint32_t slot = 0;
  for (std::size_t c = 0; c < m; ++c)
    if (block_of[first[c]] != block_of[second[c]]) cross_row_slot[cursor[second[c]]++] = slot++;
}

void ExplicitSolverStrategy::WallContacts::Resize(std::size_t n) {
  particle.resize(n);
  face.resize(n);
  tangential_force.resize(n);
  tangential_stiffness.resize(n);
  normal_elastic_force.resize(n);
  sliding.resize(n);
  active.resize(n);
  force.resize(n);
  elastic_force.resize(n);
  rolling.resize(n);
  energy.resize(n);
  dissipation.resize(n);
  weights.resize(n);
  normal.resize(n);
  point.resize(n);
}

ExplicitSolverStrategy::ExplicitSolverStrategy(ModelPart& spheres, ModelPart* walls,
                                               DemSettings settings)
    : spheres_(spheres.GetRootModelPart()),
      walls_(walls ? &walls->GetRootModelPart() : nullptr),
      settings_(settings) {
  SetDeltaTime(settings_.delta_time);
  if (settings_.sort_rows_frequency < 0)
    TESSERA_ERROR("sort_rows_frequency must be >= 0 (0: never sort), got ",
                  settings_.sort_rows_frequency);
  if (settings_.force_block_rows < 1)
    TESSERA_ERROR("force_block_rows must be >= 1, got ", settings_.force_block_rows);
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
    periodic_ = PeriodicBox{true, axes, settings_.bounding_box_min, settings_.bounding_box_max};
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

void ExplicitSolverStrategy::SetDeltaTime(double dt) {
  if (!(dt > 0.0) || !std::isfinite(dt)) TESSERA_ERROR("the DEM time step must be > 0, got ", dt);
  settings_.delta_time = dt;
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

void ExplicitSolverStrategy::SetClusterModelPart(ModelPart& clusters) {
  if (initialized_)
    TESSERA_ERROR(
        "SetClusterModelPart: the DEM strategy is initialised already; give the "
        "cluster model part before Initialize()");
  clusters_part_ = &clusters.GetRootModelPart();
}

void ExplicitSolverStrategy::Initialize() {
  DeclareParticleVariables(spheres_);
  material_index_ = MaterialIndex();
  clusters_ = RigidClusters{};
  if (clusters_part_ != nullptr && clusters_part_->NumberOfElements() > 0) {
    // Member spheres get ids after every id in use (Kratos numbers them after
    // the largest of all model parts).
    IdType node_id = 0, element_id = 0;
    for (ModelPart* part : {&spheres_, walls_, clusters_part_}) {
      if (part == nullptr) continue;
      for (auto&& node : part->Nodes()) node_id = std::max(node_id, node.Id());
      for (const Element& element : part->Elements())
        element_id = std::max(element_id, element.Id());
      for (const Condition& condition : part->Conditions())
        element_id = std::max(element_id, condition.Id());
    }
    CreateClusterSpheres(*clusters_part_, spheres_, node_id + 1, element_id + 1,
                         settings_.dimension, clusters_);
  }
  FillParticles(spheres_, material_index_, particles_, settings_.dimension);
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
    // A sphere wholly inside another one (d + r_small <= r_big) is an artefact of
    // the mesher: it is deleted before anything else happens.
    std::vector<std::uint8_t> keep(particles_.size(), 1);
    bool any = false;
    for (std::size_t c = 0; c < pairs_.first.size(); ++c) {
      const std::uint32_t i = pairs_.first[c], j = pairs_.second[c];
      // A cluster's spheres go only with the whole cluster.
      if (particles_.cluster[i] != 0 || particles_.cluster[j] != 0) continue;
      const double d = Norm(Separation(i, j));
      const double small = std::min(particles_.radius[i], particles_.radius[j]);
      const double big = std::max(particles_.radius[i], particles_.radius[j]);
      if (d + small <= big) {
        keep[particles_.radius[i] <= particles_.radius[j] ? i : j] = 0;
        any = true;
      }
    }
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
  CollectFreeWallLoads();
  ShareRowsWithNodes();
  ReleaseFreedHeapMemory();  // the rows' own copies of shared columns
  dissipated_ = EnergyTotals{};
  timings_ = PhaseTimings{};  // the profile counts steps, not the set-up
  initialized_ = true;
}

void ExplicitSolverStrategy::RegisterParticleMaterial(const Properties* properties,
                                                      double smallest_radius) {
  if (initialized_)
    TESSERA_ERROR(
        "RegisterParticleMaterial: the DEM strategy is initialised already; register "
        "the materials of inserted particles before Initialize()");
  registered_materials_.emplace_back(properties, smallest_radius);
}

void ExplicitSolverStrategy::InsertParticles(const std::vector<NewParticle>& particles) {
  if (!initialized_) TESSERA_ERROR("InsertParticles: call Initialize() first");
  const std::size_t first_new = particles_.size();
  for (const NewParticle& p : particles) {
    Node node = spheres_.CreateNewNode(p.node_id, p.position[0], p.position[1], p.position[2]);
    node.FastGetSolutionStepValue(RADIUS) = p.radius;
    node.FastGetSolutionStepValue(VELOCITY) = p.velocity;
    node.FastGetSolutionStepValue(ANGULAR_VELOCITY) = Array3{};
    AddParticleVelocityDofs(node);
    if (!spheres_.HasProperties(p.properties->Id())) spheres_.AddProperties(p.properties);
    const IdType ids[1] = {p.node_id};
    const Element& element = spheres_.CreateNewElement(
        p.element_type ? *p.element_type : "SphericParticle3D", p.element_id, ids, p.properties);
    AppendParticle(spheres_, element, material_index_, particles_, settings_.dimension);
  }
  StartNewRows(first_new);
}

void ExplicitSolverStrategy::StartNewRows(std::size_t first_new) {
  increments_are_velocity_steps_ = false;  // the newcomers have made no increment
  // Their force until the next evaluation is their weight.
  for (std::size_t row = first_new; row < particles_.size(); ++row)
    particles_.force[row] = particles_.mass[row] * settings_.gravity;
  if (settings_.periodic) WrapIntoPeriodicBox(first_new);
  AddCandidatesOfNewRows(first_new);
  ShareRowsWithNodes();
  // Their candidates were found where they are now: the adaptive search
  // measures their displacement from there.
  if (AdaptiveSearchArmed() && search_position_.size() == first_new)
    for (std::size_t row = first_new; row < particles_.size(); ++row)
      search_position_.push_back(particles_.position[row]);
}

void ExplicitSolverStrategy::AdoptElementsAddedToTheModelPart() {
  // Every element of the spheres' model part is a row (FillParticles at
  // Initialize; inlets and the bounding box keep both in step), so a
  // difference in number is elements a script created (or removed) since.
  const std::size_t elements = spheres_.NumberOfElements();
  if (elements == particles_.size()) return;
  std::unordered_set<IdType> rows(particles_.element_id.begin(), particles_.element_id.end());
  if (elements < particles_.size() || rows.size() != particles_.size())
    TESSERA_ERROR("the spheres' model part ", spheres_.FullName(), " holds ", elements,
                  " elements but the DEM strategy ", particles_.size(),
                  " particles: elements were removed (or renumbered) after Initialize; the "
                  "strategy deletes particles itself (bounding box)");
  const std::size_t first_new = particles_.size();
  for (const Element& element : spheres_.Elements()) {
    if (rows.count(element.Id()) != 0) continue;
    AddParticleVelocityDofs(element.GetGeometry()[0]);
    AppendParticle(spheres_, element, material_index_, particles_, settings_.dimension);
  }
  if (particles_.size() != elements)
    TESSERA_ERROR("the spheres' model part ", spheres_.FullName(), " holds ", elements,
                  " elements but only ", particles_.size(),
                  " are particles of the DEM strategy: elements were renumbered after Initialize");
  StartNewRows(first_new);
}

void ExplicitSolverStrategy::AddCandidatesOfNewRows(std::size_t first_new) {
  const std::size_t n = particles_.size();
  if (first_new >= n) return;
  // The rows that may pair with a new one: those in the box of the new rows
  // widened by the largest reach, in increasing order (so that the subset's
  // sorted pairs map to sorted pairs of rows), then the new rows.
  Array3 low = particles_.position[first_new], high = low;
  double new_radius = 0.0, any_radius = 0.0;
  for (std::size_t i = first_new; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      low[k] = std::min(low[k], particles_.position[i][k]);
      high[k] = std::max(high[k], particles_.position[i][k]);
    }
    new_radius = std::max(new_radius, particles_.radius[i]);
  }
  for (double r : particles_.radius) any_radius = std::max(any_radius, r);
  const double reach = new_radius + any_radius + settings_.search_tolerance;
  std::vector<std::uint32_t> rows;
  std::vector<Array3> position;
  std::vector<double> radius;
  for (std::size_t i = 0; i < n; ++i) {
    const Array3& x = particles_.position[i];
    // (A periodic domain has neighbours across its faces: every row.)
    bool near = i >= first_new || settings_.periodic;
    if (!near) {
      near = true;
      for (int k = 0; k < 3; ++k) near = near && x[k] >= low[k] - reach && x[k] <= high[k] + reach;
    }
    if (!near) continue;
    rows.push_back(static_cast<std::uint32_t>(i));
    position.push_back(x);
    radius.push_back(particles_.radius[i]);
  }
  insertion_search_.FindParticlePairs(position, radius, settings_.search_tolerance, scratch_first_,
                                      scratch_second_);
  // Keep the pairs with a new row (the second one: new rows come last).
  std::size_t added = 0;
  for (std::size_t c = 0; c < scratch_first_.size(); ++c)
    if (rows[scratch_second_[c]] >= first_new) {
      scratch_first_[added] = rows[scratch_first_[c]];
      scratch_second_[added] = rows[scratch_second_[c]];
      ++added;
    }

  // Merge with the current list, both sorted by (first, second); an existing
  // contact keeps everything, a new one starts fresh.
  {
    PairContacts& pc = pairs_;
    const std::size_t old_count = pc.first.size();
    std::vector<std::uint32_t> first(old_count + added), second(old_count + added);
    std::vector<std::uint32_t>& source = scratch_cursor_;
    source.resize(old_count + added);
    std::size_t o = 0, a = 0;
    for (std::size_t c = 0; c < old_count + added; ++c) {
      const bool take_old =
          a == added || (o < old_count &&
                         (pc.first[o] < scratch_first_[a] ||
                          (pc.first[o] == scratch_first_[a] && pc.second[o] < scratch_second_[a])));
      if (take_old) {
        first[c] = pc.first[o];
        second[c] = pc.second[o];
        source[c] = static_cast<std::uint32_t>(o++);
      } else {
        first[c] = scratch_first_[a];
        second[c] = scratch_second_[a];
        source[c] = kFreshContact;
        ++a;
      }
    }
    pc.first.swap(first);
    pc.second.swap(second);
    CarryHistories(pc, source);
    pc.Index(n, settings_.force_block_rows);
  }

  // Wall candidates of the new rows, appended (the list is sorted by particle).
  if (faces_.size() > 0) {
    position.assign(particles_.position.begin() + static_cast<std::ptrdiff_t>(first_new),
                    particles_.position.end());
    radius.assign(particles_.radius.begin() + static_cast<std::ptrdiff_t>(first_new),
                  particles_.radius.end());
    insertion_search_.FindWallCandidates(position, radius, faces_.boxes,
                                         settings_.wall_search_tolerance, scratch_first_,
                                         scratch_second_);
    KeepFacesInReach(faces_, position, radius, settings_.wall_search_tolerance, scratch_first_,
                     scratch_second_);
    WallContacts& w = wall_contacts_;
    const std::size_t old_count = w.particle.size();
    w.Resize(old_count + scratch_first_.size());  // new entries value-initialised: fresh
    for (std::size_t c = 0; c < scratch_first_.size(); ++c) {
      w.particle[old_count + c] = static_cast<std::uint32_t>(first_new + scratch_first_[c]);
      w.face[old_count + c] = scratch_second_[c];
    }
  }
  WallContacts& w = wall_contacts_;
  w.particle_start.assign(n + 1, 0);
  for (std::uint32_t p : w.particle) ++w.particle_start[p + 1];
  for (std::size_t i = 0; i < n; ++i) w.particle_start[i + 1] += w.particle_start[i];
  global_damping_power_.resize(settings_.global_damping > 0.0 ? n : 0, 0.0);
  pair_dissipation_.resize(settings_.energy_calculation ? n : 0, DissipationPower{});
}

void ExplicitSolverStrategy::CreateContinuumBonds() {
  if (settings_.dimension != 3)
    TESSERA_ERROR(
        "the continuum strategy bonds 3D spheres; bonded 2D discs are not supported "
        "yet (DemSettings.dimension is ",
        settings_.dimension, ")");
  bond_table_.Build(material_index_.List(), is_wall_material_, table_, settings_.bond_stiffness);
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
  CreateBonds(particles_, group, skin, bond_table_, settings_.search_tolerance, periodic_, bonds_);
}

void ExplicitSolverStrategy::RemoveParticlesTouchingWalls(double time) {
  // As Kratos' strategy does at its start: a sphere with a wall contact after
  // the first search (its centre within its radius of a face: facet, edge or
  // vertex) is deleted, and the lists are searched again without it.
  const WallContacts& wc = wall_contacts_;
  std::vector<std::uint8_t> keep(particles_.size(), 1);
  bool any = false;
  for (std::size_t c = 0; c < wc.particle.size(); ++c) {
    const std::uint32_t i = wc.particle[c];
    if (!keep[i] || particles_.cluster[i] != 0) continue;  // clusters stay whole
    FaceContactGeometry g;
    FaceContact(faces_, wc.face[c], particles_.position[i], particles_.radius[i], g);
    if (g.type == FaceContactType::kNone) continue;
    keep[i] = 0;
    any = true;
  }
  if (!any) return;
  RemoveParticles(keep);
  Search(time);
}

void ExplicitSolverStrategy::CleanInitialIndentations() {
  // Each overlapping pair (in list order) is shrunk, both radii by the same
  // factor, until it just touches; masses follow the new radii.
  bool changed = false;
  for (std::size_t c = 0; c < pairs_.first.size(); ++c) {
    const std::uint32_t i = pairs_.first[c], j = pairs_.second[c];
    // A cluster keeps the spheres of its .clu geometry.
    if (particles_.cluster[i] != 0 || particles_.cluster[j] != 0) continue;
    const double d = Norm(Separation(i, j));
    const double sum = particles_.radius[i] + particles_.radius[j];
    if (d >= sum || d <= 0.0) continue;
    const double factor = d / sum;
    for (std::uint32_t k : {i, j}) {
      const double scale = factor * factor * factor;
      particles_.radius[k] *= factor;
      particles_.mass[k] *= scale;
      particles_.inertia[k] *= scale * factor * factor;
    }
    changed = true;
  }
  if (changed) Search(spheres_.GetProcessInfo().GetValue(TIME));
}

// ---------------------------------------------------------------- search

void ExplicitSolverStrategy::RemoveParticles(const std::vector<std::uint8_t>& keep) {
  const std::size_t n = particles_.size();
  std::vector<std::uint32_t> new_index(n, std::numeric_limits<std::uint32_t>::max());
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i]) new_index[i] = next++;
  // Out of the model part: elements and their nodes.
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i]) continue;
    spheres_.GetElement(particles_.element_id[i]).Set(TO_ERASE, true);
    Node(&spheres_.Nodal(), particles_.node[i]).Set(TO_ERASE, true);
  }
  spheres_.RemoveElementsFlagged(TO_ERASE);
  spheres_.RemoveNodesFlagged(TO_ERASE);
  particles_.Compact(keep);
  glued_.Renumber(new_index);
  bonds_.Renumber(new_index);
  // A cluster's rows go all or none: its first row is kept or it is being removed.
  for (std::uint32_t& first : clusters_.first_row)
    if (new_index[first] != std::numeric_limits<std::uint32_t>::max()) first = new_index[first];
  // Node positions moved with the removal: take them from the elements again,
  // found by id (the rows may be sorted in space, not in element order).
  for (std::size_t row = 0; row < particles_.size(); ++row)
    particles_.node[row] =
        spheres_.GetElement(particles_.element_id[row]).GetGeometry().NodeIndex(0);

  // Contacts keep their histories under the new numbering (the map is monotonic,
  // so the lists stay sorted).
  auto remap_pairs = [&](PairContacts& p) {
    std::size_t out = 0;
    for (std::size_t c = 0; c < p.first.size(); ++c) {
      const std::uint32_t a = new_index[p.first[c]], b = new_index[p.second[c]];
      if (a == std::numeric_limits<std::uint32_t>::max() ||
          b == std::numeric_limits<std::uint32_t>::max())
        continue;
      p.first[out] = a;
      p.second[out] = b;
      p.history[out] = p.history[c];
      p.state[out] = p.state[c];
      ++out;
    }
    p.Resize(out);
  };
  remap_pairs(pairs_);
  std::size_t out = 0;
  WallContacts& w = wall_contacts_;
  for (std::size_t c = 0; c < w.particle.size(); ++c) {
    const std::uint32_t a = new_index[w.particle[c]];
    if (a == std::numeric_limits<std::uint32_t>::max()) continue;
    w.particle[out] = a;
    w.face[out] = w.face[c];
    w.tangential_force[out] = w.tangential_force[c];
    w.tangential_stiffness[out] = w.tangential_stiffness[c];
    w.normal_elastic_force[out] = w.normal_elastic_force[c];
    w.sliding[out] = w.sliding[c];
    w.active[out] = w.active[c];
    w.point[out] = w.point[c];
    ++out;
  }
  w.Resize(out);
}

void ExplicitSolverStrategy::WrapIntoPeriodicBox(std::size_t first) {
  // Positions only: displacements and every other state stay continuous. A
  // cluster's members are wrapped one by one, its centre on its own; the arms
  // between them are taken to the nearest image (rigid_clusters.h).
  Array3* const position = particles_.position.data();
  ParallelRows(particles_.size() - first,
               [&](std::size_t k) { position[first + k] = periodic_.Wrap(position[first + k]); });
  for (Array3& centre : clusters_.centre) centre = periodic_.Wrap(centre);
}

bool ExplicitSolverStrategy::RemoveOutsideBoundingBox(double time) {
  // A periodic box wraps its spheres instead (WrapIntoPeriodicBox).
  if (!settings_.bounding_box || settings_.periodic || time < settings_.bounding_box_start_time ||
      time > settings_.bounding_box_stop_time)
    return false;
  auto outside = [this](const Array3& x) {
    for (int k = 0; k < 3; ++k)
      if (!(x[k] >= settings_.bounding_box_min[k] && x[k] <= settings_.bounding_box_max[k]))
        return true;
    return false;
  };
  std::vector<std::uint8_t> keep(particles_.size(), 1);
  bool any = false;
  // Members of clusters are judged with their cluster, by its centre.
  for (std::size_t i = 0; i < particles_.size(); ++i)
    if (particles_.cluster[i] == 0 && outside(particles_.position[i])) keep[i] = 0, any = true;
  std::vector<std::uint8_t> keep_cluster(clusters_.size(), 1);
  bool any_cluster = false;
  for (std::size_t k = 0; k < clusters_.size(); ++k) {
    if (!outside(clusters_.centre[k])) continue;
    keep_cluster[k] = 0;
    any_cluster = any = true;
    for (std::uint32_t m = 0; m < clusters_.row_count[k]; ++m) keep[clusters_.first_row[k] + m] = 0;
  }
  if (!any) return false;
  RemoveParticles(keep);
  if (any_cluster) {
    // Out of the cluster model part, then the rows and the members' cluster numbers.
    for (std::size_t k = 0; k < clusters_.size(); ++k) {
      if (keep_cluster[k]) continue;
      clusters_part_->GetElement(clusters_.element_id[k]).Set(TO_ERASE, true);
      Node(&clusters_part_->Nodal(), clusters_.node[k]).Set(TO_ERASE, true);
    }
    clusters_part_->RemoveElementsFlagged(TO_ERASE);
    clusters_part_->RemoveNodesFlagged(TO_ERASE);
    clusters_.Compact(keep_cluster);
    std::size_t k = 0;
    for (Element& element : clusters_part_->Elements()) {
      clusters_.node[k] = element.GetGeometry().NodeIndex(0);
      for (std::uint32_t m = 0; m < clusters_.row_count[k]; ++m)
        particles_.cluster[clusters_.first_row[k] + m] = static_cast<std::uint32_t>(k + 1);
      ++k;
    }
  }
  return true;
}

void ExplicitSolverStrategy::DropIntraClusterPairs(std::vector<std::uint32_t>& first,
                                                   std::vector<std::uint32_t>& second) const {
  const std::uint32_t* cluster = particles_.cluster.data();
  std::size_t out = 0;
  for (std::size_t c = 0; c < first.size(); ++c) {
    const std::uint32_t a = cluster[first[c]];
    if (a != 0 && a == cluster[second[c]]) continue;
    first[out] = first[c];
    second[out] = second[c];
    ++out;
  }
  first.resize(out);
  second.resize(out);
}

bool ExplicitSolverStrategy::MayLayOutNodes() const {
  // Only where nothing else of this strategy refers to nodes of that database
  // by position (walls or clusters sharing the spheres' root).
  return walls_ != &spheres_ && clusters_part_ != &spheres_;
}

void ExplicitSolverStrategy::ShareRowsWithNodes() {
  if (settings_.share_rows_with_nodes)
    particles_.ShareColumnsWithNodes(spheres_.Nodal());
  else
    particles_.OwnColumns();
}

void ExplicitSolverStrategy::RefreshSharedRows() {
  if (particles_.SharesColumnsWithNodes()) particles_.ShareColumnsWithNodes(spheres_.Nodal());
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

void ExplicitSolverStrategy::SortRows() {
  ParticleStorage& p = particles_;
  const std::size_t n = p.size();
  // Cells of about one sphere diameter: a cell's spheres are its neighbours.
  double largest = 0.0;
  for (double r : p.radius) largest = std::max(largest, r);
  const double cell = 2.0 * largest + settings_.search_tolerance;
  if (!(cell > 0.0)) return;
  const std::vector<std::uint32_t> order = SpatialOrder(p.position, cell, p.cluster);
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

void ExplicitSolverStrategy::CheckFiniteState(double time) const {
  const ParticleStorage& p = particles_;
  const std::size_t n = p.size();
  // The first bad row in row order (deterministic for any thread count).
  std::size_t bad = n;
  for (std::size_t i = 0; i < n && bad == n; ++i)
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(p.position[i][k]) || !std::isfinite(p.velocity[i][k]) ||
          !std::isfinite(p.angular_velocity[i][k]))
        bad = i;
  if (bad == n) return;
  // The Hertz estimate depends on the impact speed: the largest finite one.
  double speed = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (const double v = Norm(p.velocity[i]); std::isfinite(v)) speed = std::max(speed, v);
  const TimeStepEstimate estimate = EstimateTimeStep(speed);
  TESSERA_ERROR("the DEM run diverged: at step ", step_, " (time ", time, ") sphere element ",
                p.element_id[bad], " has position ", p.position[bad], ", velocity ",
                p.velocity[bad], " and angular velocity ", p.angular_velocity[bad],
                ". The time step ", settings_.delta_time,
                " is probably too large for the contacts (estimated critical time step ",
                estimate.critical_time_step, "): reduce MaxTimeStep or the stiffness");
}

void ExplicitSolverStrategy::Search(double time) {
  PhaseClock clock;
  const std::size_t n = particles_.size();
  CheckFiniteState(time);
  if (settings_.sort_rows_frequency > 0 && n >= settings_.sort_rows_minimum &&
      (!sorted_once_ || step_ - last_sort_step_ >= settings_.sort_rows_frequency)) {
    SortRows();
    last_sort_step_ = step_;
    sorted_once_ = true;
  }

  // ---- particle pairs: new candidates, histories carried over by merging.
  search_.FindParticlePairs(particles_.position, particles_.radius, settings_.search_tolerance,
                            scratch_first_, scratch_second_);
  if (!clusters_.empty()) DropIntraClusterPairs(scratch_first_, scratch_second_);
  if (!bonds_.empty()) bonds_.DropBondedPairs(scratch_first_, scratch_second_);
  {
    // The new pairs replace the old ones (which the scratch lists keep for the
    // next search to overwrite); the histories follow column by column.
    PairContacts& pc = pairs_;
    MatchSortedPairs(pc.first, pc.second, scratch_first_, scratch_second_, scratch_cursor_);
    pc.first.swap(scratch_first_);
    pc.second.swap(scratch_second_);
    CarryHistories(pc, scratch_cursor_);
    pc.Index(n, settings_.force_block_rows);
  }
  clock.Lap(timings_.search_particles);

  // ---- particle-face candidates.
  {
    WallContacts& w = wall_contacts_;
    std::vector<std::uint32_t>& particle = wall_scratch_particle_;
    std::vector<std::uint32_t>& face = wall_scratch_face_;
    if (faces_.size() > 0) {
      // On the pair search's grid: the particles have not moved since.
      search_.FindWallCandidates(particles_.position, particles_.radius, faces_.boxes,
                                 settings_.wall_search_tolerance, particle, face,
                                 /*positions_unchanged=*/true);
      KeepFacesInReach(faces_, particles_.position, particles_.radius,
                       settings_.wall_search_tolerance, particle, face);
    } else {
      particle.clear(), face.clear();
    }
    MatchSortedPairs(w.particle, w.face, particle, face, scratch_cursor_);
    w.particle.swap(particle);
    w.face.swap(face);
    // With the last contact point, for the hand-over of histories between faces.
    CarryHistories(w, scratch_cursor_, w.point);
    // What the force evaluation writes starts at zero, as in a new list.
    const std::size_t m = w.particle.size();
    w.force.assign(m, Array3{});
    w.elastic_force.assign(m, Array3{});
    w.rolling.assign(m, Array3{});
    w.energy.assign(m, 0.0);
    w.dissipation.assign(m, DissipationPower{});
    w.weights.assign(m, std::array<double, 4>{});
    w.normal.assign(m, Array3{});
    w.particle_start.assign(n + 1, 0);
    for (std::size_t c = 0; c < m; ++c) ++w.particle_start[w.particle[c] + 1];
    for (std::size_t i = 0; i < n; ++i) w.particle_start[i + 1] += w.particle_start[i];
  }
  // Only what the settings use: no per-particle memory for switched-off terms.
  global_damping_power_.assign(settings_.global_damping > 0.0 ? n : 0, 0.0);
  pair_dissipation_.assign(settings_.energy_calculation ? n : 0, DissipationPower{});
  // The scratch lists keep their capacity for the next search, and the heap
  // keeps what this search freed for the next one, which takes about as much:
  // a search takes no fresh pages from the system. Where the lists have
  // shrunk to half of their longest (particles deleted, a bed gone quiet), the
  // scratch is freed and the heap gives its free pages back
  // (kernel/core/heap.h).
  const std::size_t lists = pairs_.first.size() + wall_contacts_.particle.size();
  longest_lists_ = std::max(longest_lists_, lists);
  if (2 * lists < longest_lists_) {
    for (std::vector<std::uint32_t>* scratch : {&scratch_first_, &scratch_second_, &scratch_cursor_,
                                                &wall_scratch_particle_, &wall_scratch_face_})
      std::vector<std::uint32_t>().swap(*scratch);
    ReleaseFreedHeapMemory();
    longest_lists_ = lists;
  }
  ShareRowsWithNodes();
  RememberSearchPositions();
  ++searches_;
  clock.Lap(timings_.search_walls);
}

// ---------------------------------------------------------------- adaptive search

bool ExplicitSolverStrategy::AdaptiveSearchArmed() const {
  // With a search every step there is nothing to decide; a zero tolerance
  // promises no margin (class comment), so it arms nothing.
  return settings_.adaptive_search && settings_.search_frequency > 1 &&
         (settings_.search_tolerance > 0.0 ||
          (settings_.wall_search_tolerance > 0.0 && faces_.size() > 0));
}

void ExplicitSolverStrategy::RememberSearchPositions() {
  if (!AdaptiveSearchArmed()) return;  // no copy of the positions where nothing reads it
  const std::size_t n = particles_.size();
  // assign keeps the capacity: no allocation once the rows have stopped growing.
  search_position_.assign(particles_.position.data(), particles_.position.data() + n);
  search_face_points_.assign(faces_.points.begin(), faces_.points.end());
  wall_displacement_ = 0.0;
}

namespace {

// The largest squared displacement of a row from `reference` (to the nearest
// periodic image where `periodic` is active) and, with kDrift, the largest
// squared speed and squared F/m: a max, exact in any order, so the same for
// any number of threads.
struct RowMotion {
  double moved2 = 0.0, speed2 = 0.0, accel2 = 0.0;
};

template <bool kDrift, bool kPeriodic>
RowMotion LargestRowMotion(std::size_t n, const Array3* position, const Array3* reference,
                           const Array3* velocity, const Array3* force, const double* mass,
                           const PeriodicBox& periodic) {
  double moved2 = 0.0, speed2 = 0.0, accel2 = 0.0;
  const auto count = static_cast<std::ptrdiff_t>(n);
  const bool parallel = n >= kMinimumParallelRows && ParallelThreads() > 1;
#pragma omp parallel for schedule(static) reduction(max : moved2, speed2, accel2) if (parallel)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    Array3 d = position[i] - reference[i];
    if constexpr (kPeriodic) d = periodic.Nearest(d);
    moved2 = std::max(moved2, Dot(d, d));
    if constexpr (kDrift) {
      speed2 = std::max(speed2, Dot(velocity[i], velocity[i]));
      accel2 = std::max(accel2, Dot(force[i], force[i]) / (mass[i] * mass[i]));
    }
  }
  return {moved2, speed2, accel2};
}

}  // namespace

bool ExplicitSolverStrategy::CandidatesMayMissContacts(bool before_drift) {
  const std::size_t n = particles_.size();
  // Rows deleted without a search since (none do today): no reference, search.
  if (search_position_.size() != n || search_face_points_.size() != faces_.size()) return true;
  const Array3* x = particles_.position.data();
  const Array3* x0 = search_position_.data();
  RowMotion motion;
  if (before_drift)
    motion =
        LargestRowMotion<true, false>(n, x, x0, particles_.velocity.data(), particles_.force.data(),
                                      particles_.mass.data(), periodic_);
  else if (settings_.periodic)
    motion = LargestRowMotion<false, true>(n, x, x0, nullptr, nullptr, nullptr, periodic_);
  else
    motion = LargestRowMotion<false, false>(n, x, x0, nullptr, nullptr, nullptr, periodic_);
  double particle = std::sqrt(motion.moved2);
  if (before_drift) {
    // Velocity Verlet's drift: Δt |v + c Δt/2 F/m| (fixed components not
    // kicked), at most Δt (|v| + c Δt/2 |F|/m), each term at its largest.
    const double dt = settings_.delta_time;
    particle +=
        dt * (std::sqrt(motion.speed2) + VirtualMassKick(0.5 * dt) * std::sqrt(motion.accel2));
  }
  const double pair_tolerance = settings_.search_tolerance;
  if (pair_tolerance > 0.0 && 2.0 * particle > pair_tolerance) return true;
  const double wall_tolerance = settings_.wall_search_tolerance;
  if (!(wall_tolerance > 0.0) || faces_.size() == 0) return false;
  if (particle > wall_tolerance) return true;  // before the faces' pass
  // A point of a face is a combination of its vertices with weights >= 0
  // summing to 1, so it moves at most as far as its farthest vertex. A face
  // standing still this step (no vertex velocity or displacement) is where it
  // was at the step before, counted then: the largest displacement since the
  // search is kept from step to step (every step between two searches comes
  // here), and only the faces in motion are measured, none on fixed walls.
  double wall2 = wall_displacement_ * wall_displacement_;
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    if (faces_.still[f]) continue;
    for (int k = 0; k < faces_.vertex_count[f]; ++k) {
      const Array3 d = faces_.points[f][k] - search_face_points_[f][k];
      wall2 = std::max(wall2, Dot(d, d));
    }
  }
  wall_displacement_ = std::sqrt(wall2);
  return particle + wall_displacement_ > wall_tolerance;
}

// ---------------------------------------------------------------- forces

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

void ExplicitSolverStrategy::FillPairArrays(std::size_t particle_materials) {
  const std::size_t nm = table_.size();
  PairTableArrays& t = pair_arrays_;
  for (std::vector<double>* column :
       {&t.young, &t.shear, &t.damping_ratio, &t.defined, &t.share, &t.tangential_damping,
        &t.rolling_friction, &t.rolling_viscous})
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
        t.rolling_viscous[k] =
            pair.rolling_model == RollingFrictionModel::kViscousTorque ? 1.0 : 0.0;
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

bool ExplicitSolverStrategy::RelativeDisplacementIsVelocityStep() const {
  // Not at Initialize (no increment made yet), nor without rotation (the
  // spins, which the velocity form reads, are then not integrated).
  if (!settings_.rotation || step_ == 0) return false;
  // Velocity Verlet computes the forces inside the step, with the velocities
  // that made its increments (KickAndDrift).
  if (settings_.scheme == TranslationalScheme::kVelocityVerlet) return true;
  // Symplectic Euler computes them with the velocities of the last
  // integration, which made the increments, unless a row moved otherwise
  // since: glued to a wall, a member of a cluster, a velocity dof fixed (a
  // process may have imposed a new velocity before these forces), or
  // inserted after the integration. Then every contact keeps the increments
  // (Kratos' form), so that the same rows give the same forces as before. (A
  // velocity that a script sets on a free node between steps enters the next
  // tangential increment as v Δt rather than as the motion already made: the
  // two differ by O(Δt) in that one step, as the schemes themselves do.)
  return increments_are_velocity_steps_ && glued_.size() == 0 && clusters_.empty() &&
         std::none_of(particles_.fixed.begin(), particles_.fixed.end(),
                      [](std::uint8_t bits) { return bits != 0; });
}

void ExplicitSolverStrategy::ComputeParticleContacts(bool finish, AfterGather then, bool drift) {
  PairContacts& pc = pairs_;
  ParticleStorage& p = particles_;
  const std::size_t n = p.size();
  const std::size_t block_rows = settings_.force_block_rows;
  const std::size_t blocks = (n + block_rows - 1) / block_rows;
  block_finished_.assign(blocks, 0);
  block_done_.assign(blocks, 0);
  if (n == 0) return;
  std::uint8_t* const block_done = block_done_.data();
  std::uint8_t* const block_finished = block_finished_.data();
  const std::uint32_t* const earliest_source = pc.earliest_source_block.data();
  const std::uint32_t* const latest_target = pc.latest_target_block.data();
  // The blocks kicked and drifted so far (`drift`: one thread, block order).
  std::size_t drifted_blocks = 0;
  const IntegrationRows integration_rows(p);
  const bool quads = QuadRowUpdates();
  const IntegrationConstants integration = Integration();
  // Raw pointers: the loop stores bytes (the candidates' state), which may alias
  // anything, so a vector's data pointer would be reloaded after each of them.
  const Array3* const position = p.position.data();
  const Array3* const velocity = p.velocity.data();
  const Array3* const spin = p.angular_velocity.data();
  const Array3* const step_displacement = p.delta_displacement.data();
  const Array3* const step_rotation = p.delta_rotation.data();
  const double* const radius = p.radius.data();
  const double* const mass = p.mass.data();
  const double* const inertia = p.inertia.data();
  const int* const material = p.material.data();
  Array3* const contact_force = p.contact_force.data();
  Array3* const torque = p.torque.data();
  // The elastic parts are summed only where the rows hold ELASTIC_FORCES
  // (ParticleStorage): null otherwise, the cross slots' too.
  const bool sum_elastic = !p.elastic_force.empty();
  pc.cross_elastic.resize(sum_elastic ? pc.cross_force.size() : 0);
  Array3* const elastic_force = sum_elastic ? p.elastic_force.data() : nullptr;
  const std::uint32_t* const first_start = pc.first_start.data();
  const std::uint32_t* const second = pc.second.data();
  PairHistory* const history = pc.history.data();
  std::uint8_t* const state = pc.state.data();
  Array3* const cross_force = pc.cross_force.data();
  Array3* const cross_elastic = sum_elastic ? pc.cross_elastic.data() : nullptr;
  Array3* const cross_torque = pc.cross_torque.data();
  DissipationPower* const dissipation = pair_dissipation_.data();
  const bool track_dissipation = settings_.energy_calculation;
  const std::size_t materials = table_.size();
  const PairParameters* const pairs = &table_.Pair(0, 0);
  // Where the increments are the velocities times Δt, the relative
  // displacement at the contact is the relative velocity times Δt: no
  // gathering of the increments (RelativeDisplacementIsVelocityStep).
  const bool displacement_is_velocity_step = RelativeDisplacementIsVelocityStep();
  const double dt = settings_.delta_time;
  const std::uint32_t* const wall_start = wall_contacts_.particle_start.data();
  const std::uint32_t* const wall_face = wall_contacts_.face.data();
  const std::uint32_t* const glued = p.glued.data();
  auto prefetch_wall_sphere = [=](std::size_t a) {
    __builtin_prefetch(&glued[a]);
    __builtin_prefetch(&position[a]);
    __builtin_prefetch(&radius[a]);
    __builtin_prefetch(&material[a]);
    __builtin_prefetch(&mass[a]);
    __builtin_prefetch(&inertia[a]);
    __builtin_prefetch(&velocity[a]);
    __builtin_prefetch(&spin[a]);
    __builtin_prefetch(&step_displacement[a]);
    __builtin_prefetch(&step_rotation[a]);
    __builtin_prefetch(&wall_face[wall_start[a]]);
  };
  const double* const pair_share = pair_arrays_.share.data();
  const double* const pair_tangential_damping = pair_arrays_.tangential_damping.data();
  const bool batched =
      settings_.batched_pair_contacts && batch_law_valid_ && PairContactBatchAvailable();
  const ContactLaw batch_law = batch_law_;
  // In a periodic domain both paths take the nearest images.
  const bool periodic = settings_.periodic;
  const PeriodicBox box = periodic_;
  // One material for every sphere (the common case): every candidate is of one
  // pair, and the kernel reads the table once per batch.
  const bool one_material =
      std::all_of(material, material + n, [m = material[0]](int k) { return k == m; });
  const std::int32_t uniform_pair =
      one_material
          ? static_cast<std::int32_t>(static_cast<std::size_t>(material[0]) * (materials + 1))
          : -1;
  const PairBatchInput batch_input{
      position,
      velocity,
      spin,
      step_displacement,
      step_rotation,
      radius,
      mass,
      inertia,
      material,
      static_cast<std::uint32_t>(materials),
      pc.first.data(),
      second,
      history,
      state,
      &pair_arrays_,
      dt,
      displacement_is_velocity_step,
      track_dissipation,
      periodic_,
      uniform_pair,
      settings_.eight_lane_pair_contacts && EightLanePairContactBatchAvailable()};
  // Captured by value: pointers read through a reference to the enclosing frame
  // would be reloaded after every byte store as well.
  ParallelBlocks(n, blocks, [=, this, &pc, &drifted_blocks](std::size_t b) {
    const std::size_t begin = b * block_rows, end = std::min(n, begin + block_rows);
    // The rows this block's contacts read (its own and later blocks' up to the
    // latest target) kicked and drifted first; each row once, before any read.
    if (drift) {
      const std::size_t last = std::min(n, (latest_target[b] + std::size_t{1}) * block_rows);
      KickAndDriftRowRange(integration_rows, integration, drifted_blocks * block_rows, last, quads);
      drifted_blocks = std::max<std::size_t>(drifted_blocks, latest_target[b] + std::size_t{1});
    }
    // Once the block is done, its rows are finished at once if every block
    // with a contact into them is done too: then nothing else adds to these
    // rows or reads them in this pass (later blocks' contacts have both
    // spheres in later blocks), and their data is still in cache. The order
    // of every sum is that of GatherForces, so the result is the same.
    auto finish_block = [&] {
      if (!finish) return;
      std::atomic_ref<std::uint8_t>(block_done[b]).store(1, std::memory_order_release);
      for (std::size_t s = earliest_source[b]; s < b; ++s)
        if (std::atomic_ref<std::uint8_t>(block_done[s]).load(std::memory_order_acquire) == 0)
          return;
      FinishRows(begin, end, then);
      block_finished[b] = 1;
    };
    // Each row starts from its wall contacts; rows of this block then receive
    // the forces of this block's contacts as they come.
    std::vector<FaceContactGeometry>& wall_features = ThreadWallFeatures();
    for (std::size_t i = begin; i < end; ++i) {
      // The rows of the sphere kWallRowsAhead rows on, if it has wall
      // candidates, fetched now: the spheres near a wall are a sparse subset
      // of the rows, whose lines the hardware prefetcher does not bring, and
      // the wall contacts waited on them (the sphere's spin and velocity were
      // the loop's slowest loads).
      if (const std::size_t a = i + kWallRowsAhead; a < end && wall_start[a] != wall_start[a + 1])
        prefetch_wall_sphere(a);
      if (wall_start[i] == wall_start[i + 1]) {  // most spheres are far from any wall
        // Separate stores: a chained assignment reloads each value it stored.
        contact_force[i] = Array3{};
        if (sum_elastic) elastic_force[i] = Array3{};
        torque[i] = Array3{};
        continue;
      }
      Array3 wall_force{}, wall_elastic{}, wall_torque{};
      ComputeWallContacts(i, wall_features, wall_force, wall_elastic, wall_torque);
      contact_force[i] = wall_force;
      if (sum_elastic) elastic_force[i] = wall_elastic;
      torque[i] = wall_torque;
    }
    // Where the block's contacts add their forces (AddPairContact): its rows,
    // and its cross slots, numbered from the block's first in list order.
    if (track_dissipation) std::fill(dissipation + begin, dissipation + end, DissipationPower{});
    PairBatchRows rows{contact_force,
                       elastic_force,
                       torque,
                       cross_force,
                       cross_elastic,
                       cross_torque,
                       track_dissipation ? dissipation : nullptr,
                       static_cast<std::uint32_t>(end),
                       pc.cross_block_start[b]};

    // A candidate that is no contact (now) loses its history and gives its
    // cross slot, if it has one, nothing (the batch kernel settles its own).
    auto clear_candidate = [&](std::uint32_t c, bool cross) {
      if (state[c]) history[c] = PairHistory{};
      state[c] = 0;
      if (!cross) return;
      ClearCrossSlot(rows, rows.next_slot++);
    };

    // One row, one contact at a time (any law, any processor).
    auto scalar_row = [&](std::size_t i) {
      const Array3 xi = position[i];
      const double ri = radius[i], mi = mass[i];
      const std::size_t material_i = static_cast<std::size_t>(material[i]);
      for (std::uint32_t c = first_start[i]; c < first_start[i + 1]; ++c) {
        const std::uint32_t j = second[c];
        const bool cross = j >= end;
        const Array3 d = periodic ? box.Nearest(position[j] - xi) : position[j] - xi;
        const double distance2 = Dot(d, d);
        const double reach = ri + radius[j];
        const std::size_t pair_index = material_i * materials + material[j];
        const PairParameters* pair = &pairs[pair_index];
        if (!(distance2 < reach * reach && distance2 > 0.0)) {
          clear_candidate(c, cross);
          continue;
        }
        if (!pair->defined) {
          RecordError(pending_pair_error_, static_cast<std::int64_t>(c));
          clear_candidate(c, cross);
          continue;
        }
        const double distance = std::sqrt(distance2);
        const double overlap = reach - distance;
        // 1/d, R* = r_i r_j / (r_i + r_j) and m* = m_i m_j / (m_i + m_j) from one
        // division (divisions, not the products, bound this loop).
        const double mass_sum = mi + mass[j];
        const double inverse = 1.0 / (reach * mass_sum * distance);
        const Array3 normal = d * (reach * mass_sum * inverse);
        const double pair_radius = ri * radius[j] * mass_sum * distance * inverse;
        const double pair_mass = mi * mass[j] * reach * distance * inverse;
        // Contact point: the overlap split between the spheres as two springs in
        // series (thesis eq. 2.8 with the sign of its erratum).
        // Both arms lie along the normal: arm_i = a_i n, arm_j = -a_j n. Hence
        // w_j x arm_j - w_i x arm_i = -(a_j w_j + a_i w_i) x n, one cross product
        // for both spheres, and arm x F = a (n x F) for both torques.
        const double share_i = pair_share[pair_index];
        const double a_i = ri - share_i * overlap;
        const double a_j = radius[j] - (1.0 - share_i) * overlap;
        const Array3 relative_velocity =
            (velocity[j] - velocity[i]) - Cross(a_j * spin[j] + a_i * spin[i], normal);
        const Array3 relative_displacement =
            displacement_is_velocity_step
                ? relative_velocity * dt
                : (step_displacement[j] - step_displacement[i]) -
                      Cross(a_j * step_rotation[j] + a_i * step_rotation[i], normal);
        PairHistory& record = history[c];
        std::uint8_t sliding = state[c] & kPairSliding ? 1 : 0;
        const ContactForce f = ComputeContactForce(
            *pair, overlap, StiffnessRadius(pair->law, pair_radius, ri, radius[j]), pair_mass,
            normal, relative_velocity, relative_displacement,
            {record.tangential_force, record.tangential_stiffness, record.normal_elastic_force,
             sliding},
            dt, pair_tangential_damping[pair_index]);
        state[c] = sliding ? kPairTouching | kPairSliding : kPairTouching;
        const Array3 moment = Cross(normal, f.force);
        AddPairContact(batch_input, *pair, static_cast<std::uint32_t>(i), j,
                       cross ? rows.next_slot++ : PairContactBatch::kNoSlot,
                       {f.force, a_i * moment, a_j * moment, f.normal_force, f.damping_power,
                        f.friction_power},
                       f.elastic_force, rows);
      }
    };

    if (!batched) {
      for (std::size_t i = begin; i < end; ++i) scalar_row(i);
      finish_block();
      return;
    }
    // The block's candidates in runs of up to a batch: the kernel evaluates a
    // run, updates its history and adds its forces to the rows in list order.
    PairContactBatch& batch = ThreadBatch();
    const std::uint32_t block_end = first_start[end];
    for (std::uint32_t run = first_start[begin]; run < block_end;
         run += static_cast<std::uint32_t>(PairContactBatch::kCapacity)) {
      const std::uint32_t run_end = std::min<std::uint32_t>(
          block_end, run + static_cast<std::uint32_t>(PairContactBatch::kCapacity));
      const std::int64_t undefined =
          EvaluateAndApplyPairBatch(batch_law, batch_input, run, run_end, batch, rows);
      if (undefined >= 0) RecordError(pending_pair_error_, undefined);
    }
    finish_block();
  });
}

void ExplicitSolverStrategy::ComputeWallContacts(std::size_t i,
                                                 std::vector<FaceContactGeometry>& features,
                                                 Array3& force, Array3& elastic, Array3& torque) {
  WallContacts& wc = wall_contacts_;
  const ParticleStorage& p = particles_;
  const double dt = settings_.delta_time;
  const RigidFaceStorage& faces = faces_;
  const std::uint32_t begin = wc.particle_start[i], end = wc.particle_start[i + 1];
  // Closest feature of every candidate face, then one contact per touched
  // region (Double Hierarchy, thesis §3.4). A glued particle is part of its
  // sticky wall: no contact with that wall's faces.
  const int own_wall = static_cast<int>(p.glued[i]) - 1;
  if (features.size() < end - begin) features.resize(end - begin);
  FaceContactGeometry* const feature = features.data();  // feature[c - begin]
  for (std::uint32_t c = begin; c < end; ++c) {
    if (own_wall >= 0 && face_sticky_[wc.face[c]] == own_wall)
      feature[c - begin].type = FaceContactType::kNone;
    else
      FaceContact(faces, wc.face[c], p.position[i], p.radius[i], feature[c - begin]);
  }
  // Area Distributed Method (walls/area_distribution.h): the faces the sphere
  // reaches before the Distance Hierarchy, who shadowed whom, the areas.
  const bool adm = settings_.wall_force_transfer == WallForceTransfer::kAreaDistributed;
  thread_local std::vector<std::uint8_t> reached;
  thread_local std::vector<int> shadowed_by;
  thread_local std::vector<AreaShare> shares;
  thread_local std::vector<double> master_area;
  double total_area = 0.0;
  if (adm) {
    const std::size_t count = end - begin;
    if (reached.size() < count) {
      reached.resize(count), shadowed_by.resize(count), shares.resize(count);
      master_area.resize(count);
    }
    for (std::size_t k = 0; k < count; ++k) reached[k] = feature[k].type != FaceContactType::kNone;
    ApplyDistanceHierarchy(features.data(), count, shadowed_by.data());
    total_area = DistributeByArea(faces, wc.face.data() + begin, count, p.position[i], p.radius[i],
                                  reached.data(), shadowed_by.data(), feature, shares.data(),
                                  master_area.data());
    for (std::uint32_t c = begin; c < end; ++c) {
      const AreaShare& share = shares[c - begin];
      const bool carries = total_area > 0.0 && share.master >= 0 && share.area > 0.0;
      wc.adm_master[c] = carries ? begin + static_cast<std::uint32_t>(share.master) : kNoMaster;
      wc.adm_fraction[c] = carries ? share.area / master_area[share.master] : 0.0;
      wc.adm_distributed[c] = total_area > 0.0 &&
                              feature[c - begin].type != FaceContactType::kNone &&
                              master_area[c - begin] > 0.0;
    }
  } else {
    ApplyDistanceHierarchy(features.data(), end - begin);
  }
  CarryWallHistoryAcrossFaces(i, features.data());
  for (std::uint32_t c = begin; c < end; ++c) {
    const std::uint32_t f = wc.face[c];
    ContactHistoryRef history{wc.tangential_force[c], wc.tangential_stiffness[c],
                              wc.normal_elastic_force[c], wc.sliding[c]};
    const FaceContactGeometry& g = feature[c - begin];
    if (g.type == FaceContactType::kNone) {
      if (wc.active[c]) ResetContactHistory(history);
      wc.active[c] = 0;
      continue;
    }
    const double overlap = p.radius[i] - g.distance;
    const std::size_t pair_index =
        static_cast<std::size_t>(p.material[i]) * table_.size() + faces.material[f];
    const PairParameters& pair = table_.WallPair(p.material[i], faces.material[f]);
    if (!pair.defined) {
      RecordError(pending_wall_error_, static_cast<std::int64_t>(c));
      wc.active[c] = 0;
      continue;
    }
    // The sphere's share of the overlap, E_w / (E_i + E_w) (two springs in series).
    const Array3 arm = (p.radius[i] - pair_arrays_.share[pair_index] * overlap) * g.normal;
    // The wall moves at its contact point as its vertices, weighted by the
    // shape functions there.
    // (A wall standing still adds zeros: the sums are skipped, the same bits
    // as the weights are not negative.)
    Array3 wall_velocity{}, wall_displacement{};
    if (!faces.still[f])
      for (int k = 0; k < faces.vertex_count[f]; ++k) {
        wall_velocity += g.weights[k] * faces.velocities[f][k];
        wall_displacement += g.weights[k] * faces.delta_displacement[f][k];
      }
    const Array3 relative_velocity =
        wall_velocity - (p.velocity[i] + Cross(p.angular_velocity[i], arm));
    const Array3 relative_displacement =
        wall_displacement - (p.delta_displacement[i] + Cross(p.delta_rotation[i], arm));
    ContactForce result =
        ComputeContactForce(pair, overlap, p.radius[i], p.mass[i], g.normal, relative_velocity,
                            relative_displacement, history, dt);
    if (adm && total_area > 0.0) {
      // B.1: the normal force scaled by the master's share of the area (the
      // contact's history, and so its tangential law, is the unscaled one's).
      const double ratio = master_area[c - begin] / total_area;
      result.force += (ratio - 1.0) * Dot(result.force, g.normal) * g.normal;
      result.elastic_force += (ratio - 1.0) * Dot(result.elastic_force, g.normal) * g.normal;
      result.normal_force *= ratio;
      result.elastic_energy *= ratio;
    }
    // Component by component: a whole-struct copy from the result read 16
    // bytes where 8 had just been stored, which stalled on every contact.
    StoreComponents(wc.force[c], result.force);
    StoreComponents(wc.elastic_force[c], result.elastic_force);
    wc.energy[c] = result.elastic_energy;
    wc.weights[c] = g.weights;
    wc.normal[c] = g.normal;
    wc.point[c] = g.point;
    wc.active[c] = 1;
    force += result.force;
    elastic += result.elastic_force;
    // Rolling resistance against the wall, R_r = R_i (thesis §2.5.3).
    const Array3 rolling =
        RollingResistanceTorque(pair.rolling_model, pair.rolling_friction, p.radius[i],
                                result.normal_force, p.angular_velocity[i], 1.0 / p.inertia[i], dt);
    torque += Cross(arm, result.force) + rolling;
    StoreComponents(wc.rolling[c], rolling);
    wc.dissipation[c] = {result.damping_power, result.friction_power,
                         -Dot(rolling, p.angular_velocity[i])};
  }
  // ADM: each face that carries a share takes it at its intersection
  // centroid (B.2).
  if (adm && total_area > 0.0)
    for (std::uint32_t c = begin; c < end; ++c)
      if (wc.adm_master[c] != kNoMaster) wc.weights[c] = shares[c - begin].weights;
}

void ExplicitSolverStrategy::CarryWallHistoryAcrossFaces(std::size_t i,
                                                         const FaceContactGeometry* features) {
  // A sphere sliding from one face to the next ends a contact and starts one
  // with a new face in the same step. The new contact takes the history of the
  // ended contact whose last contact point is nearest to its own, when that
  // point is within what the contact point can have moved in one step
  // (thesis §3.5.2, 3.22), so that friction stays continuous across a mesh.
  WallContacts& wc = wall_contacts_;
  const ParticleStorage& p = particles_;
  const std::uint32_t begin = wc.particle_start[i], end = wc.particle_start[i + 1];
  // Only a step that both starts and ends a contact of this sphere hands a
  // history over (most steps do neither).
  bool started = false, ended = false;
  for (std::uint32_t c = begin; c < end; ++c) {
    const bool touching = features[c - begin].type != FaceContactType::kNone;
    started = started || (touching && !wc.active[c]);
    ended = ended || (!touching && wc.active[c]);
  }
  if (!(started && ended)) return;
  double wall_motion = 0.0;
  for (std::uint32_t c = begin; c < end; ++c)
    for (int k = 0; k < faces_.vertex_count[wc.face[c]]; ++k)
      wall_motion = std::max(wall_motion, Norm(faces_.delta_displacement[wc.face[c]][k]));
  const double reach = 2.0 * (Norm(p.delta_displacement[i]) +
                              p.radius[i] * Norm(p.delta_rotation[i]) + wall_motion) +
                       kCoincidentContact * p.radius[i];
  for (std::uint32_t c = begin; c < end; ++c) {
    if (wc.active[c] || features[c - begin].type == FaceContactType::kNone) continue;
    std::uint32_t donor = end;
    double nearest = reach;
    for (std::uint32_t k = begin; k < end; ++k) {
      // An ended contact that has not yet given its history away.
      if (!wc.active[k] || features[k - begin].type != FaceContactType::kNone) continue;
      const double d = Norm(features[c - begin].point - wc.point[k]);
      if (d <= nearest) nearest = d, donor = k;
    }
    if (donor == end) continue;
    // The tangential force turned into the new tangent plane, magnitude kept.
    const Array3 n = features[c - begin].normal;
    const Array3 old_force = wc.tangential_force[donor];
    const Array3 in_plane = old_force - Dot(old_force, n) * n;
    const double length = Norm(in_plane);
    wc.tangential_force[c] = length > 0.0 ? (Norm(old_force) / length) * in_plane : Array3{};
    wc.tangential_stiffness[c] = wc.tangential_stiffness[donor];
    wc.normal_elastic_force[c] = wc.normal_elastic_force[donor];
    wc.sliding[c] = wc.sliding[donor];
    wc.active[c] = 1;
    // The donor is spent: it now counts as a contact that has just ended.
    ContactHistoryRef spent{wc.tangential_force[donor], wc.tangential_stiffness[donor],
                            wc.normal_elastic_force[donor], wc.sliding[donor]};
    ResetContactHistory(spent);
    wc.active[donor] = 0;
  }
}

void ExplicitSolverStrategy::FinishRows(std::size_t begin, std::size_t end, AfterGather then) {
  using Rows = IntegrationRows;
  using Constants = IntegrationConstants;
  const bool quads = QuadRowUpdates();
  switch (then) {
    case AfterGather::kNothing:
      FinishRowRange(
          begin, end, [](const Rows&, const Constants&, std::size_t) {}, quads, QuadUpdate::kNone);
      return;
    case AfterGather::kKick:
      FinishRowRange(
          begin, end, [](const Rows& r, const Constants& k, std::size_t i) { KickRow(r, k, i); },
          quads, QuadUpdate::kKick);
      return;
    case AfterGather::kIntegrate:
      break;
  }
  // The whole step of the run's scheme, `scheme` a std::integral_constant;
  // only Symplectic Euler has a quad update.
  auto integrate = [&](auto scheme) {
    constexpr bool kQuads = decltype(scheme)::value == TranslationalScheme::kSymplecticEuler;
    FinishRowRange(
        begin, end,
        [](const Rows& r, const Constants& k, std::size_t i) {
          IntegrateRow<decltype(scheme)::value>(r, k, i);
        },
        quads && kQuads, QuadUpdate::kSymplecticEuler);
  };
  using Scheme = TranslationalScheme;
  switch (settings_.scheme) {
    case Scheme::kForwardEuler:
      return integrate(std::integral_constant<Scheme, Scheme::kForwardEuler>{});
    case Scheme::kSymplecticEuler:
      return integrate(std::integral_constant<Scheme, Scheme::kSymplecticEuler>{});
    case Scheme::kTaylor:
      return integrate(std::integral_constant<Scheme, Scheme::kTaylor>{});
    case Scheme::kVelocityVerlet:  // (kicked, not integrated, after the forces)
      return integrate(std::integral_constant<Scheme, Scheme::kVelocityVerlet>{});
  }
}

template <class RowUpdate>
void ExplicitSolverStrategy::FinishRowRange(std::size_t begin, std::size_t end, RowUpdate update,
                                            bool quads, QuadUpdate quad_update) {
  ParticleStorage& p = particles_;
  const PairContacts& pc = pairs_;
  const Array3 gravity = settings_.gravity;
  const double alpha = settings_.global_damping;
  const bool planar = settings_.dimension == 2;
  // Raw pointers, taken once (strategies/row_integration.h says why).
  const IntegrationRows rows(p);
  const IntegrationConstants integration = Integration();
  Array3* const contact_force = p.contact_force.data();
  // Null where the elastic forces are not summed (ComputeParticleContacts).
  Array3* const elastic_force = p.elastic_force.empty() ? nullptr : p.elastic_force.data();
  Array3* const total_force = p.force.data();
  Array3* const torque_out = p.torque.data();
  const std::uint32_t* const cross_row_start = pc.cross_row_start.data();
  const std::uint32_t* const cross_row_slot = pc.cross_row_slot.data();
  const Array3* const cross_force = pc.cross_force.data();
  const Array3* const cross_elastic = elastic_force ? pc.cross_elastic.data() : nullptr;
  const Array3* const cross_torque = pc.cross_torque.data();
  double* const damping_power = global_damping_power_.data();
  // Applied loads: absent (zero) unless the model part declares them.
  const Array3* const external_force = p.external_force.empty() ? nullptr : p.external_force.data();
  const Array3* const external_moment =
      p.external_moment.empty() ? nullptr : p.external_moment.data();
  // Four rows at once, their cross slots first added to them row by row (in
  // the order of the loop below); damping and the plane stay row by row.
  quads = quads && !(alpha > 0.0) && !planar;
  const QuadSumColumns quad_sums{contact_force, external_force, external_moment, total_force,
                                 torque_out,    rows.mass,      gravity};
  // Row k's cross slots added to its sums, in slot order; their elastic parts
  // to the row's, where those are summed.
  auto add_cross_slots = [&](std::size_t k, Array3& contact, Array3& torque) {
    for (std::uint32_t s = cross_row_start[k]; s < cross_row_start[k + 1]; ++s) {
      const std::uint32_t slot = cross_row_slot[s];
      contact += cross_force[slot];
      torque += cross_torque[slot];
    }
    if (!elastic_force) return;
    Array3 elastic = elastic_force[k];
    for (std::uint32_t s = cross_row_start[k]; s < cross_row_start[k + 1]; ++s)
      elastic += cross_elastic[cross_row_slot[s]];
    elastic_force[k] = elastic;
  };
  for (std::size_t i = begin; i < end; ++i) {
    if (quads && i + 4 <= end && (quad_update == QuadUpdate::kNone || FreeQuad(rows, i))) {
      for (std::size_t k = i; k < i + 4; ++k) {
        if (cross_row_start[k] == cross_row_start[k + 1]) continue;
        // Summed in locals: accumulated in the rows, every sum would be stored
        // and reloaded per slot.
        Array3 contact = contact_force[k], torque = torque_out[k];
        add_cross_slots(k, contact, torque);
        contact_force[k] = contact;
        torque_out[k] = torque;
      }
      FinishRowQuad(quad_sums, rows, integration, quad_update, i);
      i += 3;
      continue;
    }
    Array3 contact = contact_force[i], torque = torque_out[i];
    add_cross_slots(i, contact, torque);
    Array3 total = contact;
    if (external_force) total += external_force[i];
    total += rows.mass[i] * gravity;
    if (external_moment) torque += external_moment[i];
    if (alpha > 0.0 && rows.Integrated(i)) {
      // Background damping against the motion, proportional to the unbalanced
      // force; nothing on a glued particle (moved by its wall, so it
      // dissipates nothing).
      damping_power[i] =
          ApplyGlobalDamping(settings_.global_damping_form, alpha, rows.fixed[i], rows.velocity[i],
                             rows.angular_velocity[i], total, torque);
    }
    if (planar) {
      // In-plane contacts give in-plane forces and torques about z already; this
      // drops what round-off leaves off the plane so that it cannot build up.
      total[2] = 0.0;
      torque[0] = torque[1] = 0.0;
    }
    total_force[i] = total;
    torque_out[i] = torque;
    contact_force[i] = contact;
    // The update of the row while its data is in cache: one pass and one
    // synchronisation of the threads fewer per step.
    update(rows, integration, i);
  }
}

void ExplicitSolverStrategy::GatherForces(AfterGather then) {
  const std::size_t n = particles_.size();
  const std::size_t block_rows = settings_.force_block_rows;
  const std::size_t blocks = block_finished_.size();
  ParallelBlocks(n, blocks, [&](std::size_t b) {
    if (block_finished_[b] == 0)
      FinishRows(b * block_rows, std::min(n, (b + 1) * block_rows), then);
  });
}

void ExplicitSolverStrategy::AccumulateDissipation() {
  const ScopedPhase phase(timings_.energy);
  const double dt = settings_.delta_time;
  // Deterministic sums (fixed order for any thread count): the pair contacts'
  // powers per particle (summed in contact order by ComputeParticleContacts),
  // the wall contacts' per contact, the background damping's per particle.
  auto add = [&](double DissipationPower::*term, double EnergyTotals::*total) {
    const WallContacts& wc = wall_contacts_;
    const double pairs =
        SumRows(particles_.size(), [&](std::size_t i) { return pair_dissipation_[i].*term; });
    const double walls = SumRows(wc.particle.size(), [&](std::size_t c) {
      return wc.active[c] ? wc.dissipation[c].*term : 0.0;
    });
    dissipated_.*total += dt * (pairs + walls);
  };
  add(&DissipationPower::damping, &EnergyTotals::dissipated_damping);
  add(&DissipationPower::friction, &EnergyTotals::dissipated_friction);
  add(&DissipationPower::rolling, &EnergyTotals::dissipated_rolling);
  dissipated_.dissipated_damping += dt * bond_power_.damping;
  dissipated_.dissipated_friction += dt * bond_power_.friction;
  if (settings_.global_damping > 0.0)
    dissipated_.dissipated_global_damping +=
        dt * SumRows(particles_.size(), [&](std::size_t i) { return global_damping_power_[i]; });
}

void ExplicitSolverStrategy::ComputeForces(AfterGather then, bool drift) {
  PhaseClock clock;
  // Rows may be finished within the pair pass unless bonds add to them after
  // it, or the pass may end in an error (a pair without relation), which must
  // leave every row as it was.
  const bool finish = bonds_.empty() && all_pairs_defined_;
  if (settings_.wall_force_transfer == WallForceTransfer::kAreaDistributed) {
    // Written per candidate by the wall pass (ComputeWallContacts), rows in parallel.
    wall_contacts_.adm_master.resize(wall_contacts_.particle.size());
    wall_contacts_.adm_fraction.resize(wall_contacts_.particle.size());
    wall_contacts_.adm_distributed.resize(wall_contacts_.particle.size());
  }
  ComputeParticleContacts(finish, then, drift);  // the wall contacts included, row by row
  if (!bonds_.empty()) {
    // As the pair contacts (ComputeParticleContacts): under Velocity Verlet the
    // step's relative displacement is the relative velocity times Δt.
    const bool velocity_step =
        settings_.scheme == TranslationalScheme::kVelocityVerlet && settings_.rotation && step_ > 0;
    bond_power_ = AddBondForces(bonds_, bond_table_, particles_, periodic_, settings_.delta_time,
                                velocity_step);
  }
  clock.Lap(timings_.forces);
  ThrowPendingError();
  GatherForces(then);
  if (!clusters_.empty()) AdvanceClusters(then);
  clock.Lap(timings_.integration);
}

void ExplicitSolverStrategy::AdvanceClusters(AfterGather then) {
  const double dt = settings_.delta_time;
  const bool rotation = settings_.rotation;
  GatherClusterLoads(clusters_, particles_, settings_.gravity, periodic_);
  switch (then) {
    case AfterGather::kNothing:
      return;
    case AfterGather::kKick:  // Velocity Verlet, second half kick
      KickClusters(clusters_, VirtualMassKick(0.5 * dt), rotation);
      PlaceClusterMembers(clusters_, particles_, /*positions=*/false, periodic_);
      return;
    case AfterGather::kIntegrate:
      switch (settings_.scheme) {
        case TranslationalScheme::kSymplecticEuler:  // v += a dt, x += v dt
          KickClusters(clusters_, VirtualMassKick(dt), rotation);
          DriftClusters(clusters_, dt, rotation);
          break;
        case TranslationalScheme::kForwardEuler:  // x += v dt, v += a dt
          DriftClusters(clusters_, dt, rotation);
          KickClusters(clusters_, VirtualMassKick(dt), rotation);
          break;
        case TranslationalScheme::kTaylor:  // x += v dt + a dt²/2, v += a dt
        case TranslationalScheme::kVelocityVerlet:
          KickClusters(clusters_, VirtualMassKick(0.5 * dt), rotation);
          DriftClusters(clusters_, dt, rotation);
          KickClusters(clusters_, VirtualMassKick(0.5 * dt), rotation);
          break;
      }
      PlaceClusterMembers(clusters_, particles_, /*positions=*/true, periodic_);
      return;
  }
}

// ---------------------------------------------------------------- integration

bool ExplicitSolverStrategy::QuadRowUpdates() const {
  return settings_.quad_row_updates && RowQuadsAvailable();
}

IntegrationConstants ExplicitSolverStrategy::Integration() const {
  return {settings_.delta_time, settings_.virtual_mass_coefficient,
          settings_.scheme,     settings_.rotational_scheme,
          settings_.rotation,   /*advance_displacement=*/settings_.periodic};
}

bool ExplicitSolverStrategy::DriftInPairPass(bool search) const {
  // The rows are kicked and drifted block by block in block order, which only
  // one thread keeps (ParallelBlocks runs the blocks in order then); nothing
  // may read or move them between the drift and the forces (search, periodic
  // wrap, clusters). The last block drifts every row left, so all rows are
  // drifted when the pass ends, before bonds or GatherForces read them.
  return settings_.scheme == TranslationalScheme::kVelocityVerlet && !search &&
         !settings_.periodic && clusters_.empty() &&
         (ParallelThreads() == 1 || particles_.size() < kMinimumParallelRows);
}

void ExplicitSolverStrategy::KickAndDrift() {
  const ScopedPhase phase(timings_.integration);
  const double dt = settings_.delta_time;
  const bool rotation = settings_.rotation;
  const IntegrationRows rows(particles_);
  const IntegrationConstants integration = Integration();
  // Independent rows, in blocks of a multiple of four (quads).
  constexpr std::size_t kBlockRows = 1024;
  const std::size_t n = particles_.size();
  const bool quads = QuadRowUpdates();
  ParallelBlocks(n, (n + kBlockRows - 1) / kBlockRows, [&](std::size_t b) {
    KickAndDriftRowRange(rows, integration, b * kBlockRows, std::min(n, (b + 1) * kBlockRows),
                         quads);
  });
  if (!clusters_.empty()) {
    KickClusters(clusters_, VirtualMassKick(0.5 * dt), rotation);
    DriftClusters(clusters_, dt, rotation);
    PlaceClusterMembers(clusters_, particles_, /*positions=*/true, periodic_);
  }
}

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
    if (settings_.scheme == TranslationalScheme::kVelocityVerlet) AdvanceFreeWalls(time);
    UpdateRigidFaces(*walls_, faces_);
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
  const auto moved_too_far = [this](bool before_drift) {
    const ScopedPhase phase(timings_.search_particles);
    return CandidatesMayMissContacts(before_drift);
  };
  if (settings_.scheme == TranslationalScheme::kVelocityVerlet) {
    // The forces are evaluated after the drift. Without clusters or a
    // periodic box the drift may be done inside the pair pass, after the
    // search, so the decision bounds it instead of waiting for it: on any
    // thread count (the pass drifts only on one thread), so that the same
    // steps search whatever the threads.
    const bool predict = !settings_.periodic && clusters_.empty();
    if (adaptive && predict) early = moved_too_far(/*before_drift=*/true);
    // Where it may, the pair pass kicks and drifts each block just before it
    // reads it: one pass over the rows fewer.
    const bool drift_in_pass = DriftInPairPass(cadence || early);
    if (!drift_in_pass) KickAndDrift();
    if (settings_.periodic) WrapIntoPeriodicBox();
    if (adaptive && !predict) early = moved_too_far(/*before_drift=*/false);
    if (cadence) RemoveOutsideBoundingBox(time);
    if (cadence || early) {
      early_searches_ += early ? 1 : 0;
      Search(time);
    }
    ComputeForces(AfterGather::kKick, drift_in_pass);
    if (settings_.energy_calculation) AccumulateDissipation();
    CollectFreeWallLoads();
    for (FreeRigidWall& body : free_walls_) {
      // Second half kick with the forces at the new positions; the nodes get
      // the new velocities (their positions do not change).
      KickFreeWall(body, settings_.gravity, VirtualMassKick(0.5 * settings_.delta_time), time);
      PlaceFreeWallNodes(*walls_, body);
    }
  } else {
    // The forces are evaluated where the rows are now.
    if (adaptive) early = moved_too_far(/*before_drift=*/false);
    if (cadence) RemoveOutsideBoundingBox(time);
    if (cadence || early) {
      early_searches_ += early ? 1 : 0;
      Search(time);
    }
    ComputeForces(AfterGather::kIntegrate);
    increments_are_velocity_steps_ = settings_.scheme == TranslationalScheme::kSymplecticEuler;
    if (settings_.periodic) WrapIntoPeriodicBox();
    if (settings_.energy_calculation) AccumulateDissipation();
    CollectFreeWallLoads();
    AdvanceFreeWalls(time);  // with the particles: both states are at `time`
  }
}

void ExplicitSolverStrategy::CollectFreeWallLoads() {
  if (free_walls_.empty()) return;
  for (FreeRigidWall& body : free_walls_) body.contact_force = body.contact_moment = Array3{};
  // Serial, in list order: the same sums for any number of threads. The
  // reaction of a contact acts on the wall at the contact point; the rolling
  // resistance torque on the particle returns as its opposite.
  const WallContacts& wc = wall_contacts_;
  for (std::size_t c = 0; c < wc.particle.size(); ++c) {
    if (!wc.active[c]) continue;
    const int b = face_free_wall_[wc.face[c]];
    if (b < 0) continue;
    FreeRigidWall& body = free_walls_[static_cast<std::size_t>(b)];
    body.contact_force -= wc.force[c];
    body.contact_moment += Cross(wc.point[c] - body.centre, -wc.force[c]) - wc.rolling[c];
  }
}

void ExplicitSolverStrategy::AdvanceFreeWalls(double time) {
  // The loads are those of the last force evaluation, as the particles' are
  // when they move: for the one-force schemes this is the whole step, after the
  // forces (the faces are re-read at the start of the next step); for Velocity
  // Verlet the first half kick and the drift, before the forces.
  const double dt = settings_.delta_time;
  const Array3 g = settings_.gravity;
  for (FreeRigidWall& body : free_walls_) {
    switch (settings_.scheme) {
      case TranslationalScheme::kSymplecticEuler:  // v += a dt, x += v dt
        KickFreeWall(body, g, VirtualMassKick(dt), time);
        DriftFreeWall(body, dt, time);
        break;
      case TranslationalScheme::kForwardEuler:  // x += v dt, v += a dt
        DriftFreeWall(body, dt, time);
        KickFreeWall(body, g, VirtualMassKick(dt), time);
        break;
      case TranslationalScheme::kTaylor:          // x += v dt + a dt²/2, v += a dt
      case TranslationalScheme::kVelocityVerlet:  // the second half kick follows the forces
        KickFreeWall(body, g, VirtualMassKick(0.5 * dt), time);
        DriftFreeWall(body, dt, time);
        if (settings_.scheme == TranslationalScheme::kTaylor)
          KickFreeWall(body, g, VirtualMassKick(0.5 * dt), time);
        break;
    }
    PlaceFreeWallNodes(*walls_, body);
  }
}

// ---------------------------------------------------------------- nodes

void ExplicitSolverStrategy::ReadFromNodes() {
  const ScopedPhase phase(timings_.node_sync);
  RefreshSharedRows();
  if (initialized_) AdoptElementsAddedToTheModelPart();
  ReadParticlesFromNodes(spheres_, particles_);
  if (walls_ != nullptr) ReadFreeWallLoads(*walls_, free_walls_);
  if (!clusters_.empty()) {
    // Members move with their cluster, whose velocities a script may have set.
    ReadClustersFromNodes(clusters_, *clusters_part_);
    PlaceClusterMembers(clusters_, particles_, /*positions=*/false, periodic_);
  }
  if (settings_.dimension != 2) return;
  // A process or script may have written a full 3D vector: a disc keeps its
  // in-plane part (the check at Initialize reports off-plane initial states).
  for (std::size_t i = 0; i < particles_.size(); ++i) {
    particles_.velocity[i][2] = 0.0;
    particles_.angular_velocity[i][0] = particles_.angular_velocity[i][1] = 0.0;
  }
}

void ExplicitSolverStrategy::WriteToNodes() {
  const ScopedPhase phase(timings_.node_sync);
  RefreshSharedRows();
  // DISPLACEMENT from the coordinates, except in a periodic domain, where
  // they jump and the steps advance it (IntegrationConstants).
  WriteParticlesToNodes(particles_, spheres_,
                        /*displacements_from_coordinates=*/!settings_.periodic);
  if (!clusters_.empty()) WriteClustersToNodes(clusters_, *clusters_part_);
  if (settings_.continuum && spheres_.Nodal().HasHistoricalVariable(DAMAGE_RATIO)) {
    double* ratio = spheres_.Nodal().HistoricalColumn(DAMAGE_RATIO).Data();
    const std::vector<double> share = bonds_.BrokenShare(particles_.size());
    for (std::size_t i = 0; i < share.size(); ++i) ratio[particles_.node[i]] = share[i];
  }
  if (!walls_ || faces_.size() == 0) return;
  NodalDatabase& db = walls_->Nodal();
  Array3* contact = db.HistoricalColumn(CONTACT_FORCES).Data();
  Array3* elastic = db.HistoricalColumn(ELASTIC_FORCES).Data();
  Array3* tangential = db.HistoricalColumn(TANGENTIAL_ELASTIC_FORCES).Data();
  double* pressure = db.HistoricalColumn(DEM_PRESSURE).Data();
  double* shear = db.HistoricalColumn(SHEAR_STRESS).Data();
  double* area = db.HistoricalColumn(DEM_NODAL_AREA).Data();
  for (const IndexType node : face_vertex_nodes_) {
    contact[node] = elastic[node] = tangential[node] = Array3{};
    pressure[node] = shear[node] = area[node] = 0.0;
  }
  // Forces of the particles on the walls, spread with the shape functions
  // (Kratos' nodal wall results): CONTACT_FORCES and ELASTIC_FORCES are the
  // sums of the total and elastic forces' shares; each face splits its
  // vertices' shares of the total force along its own normal (a segment, which
  // has no plane, along the contact's): the tangential parts add up as vectors
  // (TANGENTIAL_ELASTIC_FORCES, from the total force as in Kratos) and
  // SHEAR_STRESS is their magnitude over the nodal area; DEM_PRESSURE is the
  // sum over the node's faces of the magnitude of each face's normal share,
  // over the nodal area. Opposite tangential loads on a node thus cancel, as
  // the traction they make does.
  // Under the Area Distributed Method each face the sphere reaches carries
  // its share (A_e / A_m) of its master contact's force, at the face's
  // intersection centroid (walls/area_distribution.h).
  face_normal_shares_.assign(faces_.size(), std::array<double, 4>{});
  const WallContacts& wc = wall_contacts_;
  const bool adm = settings_.wall_force_transfer == WallForceTransfer::kAreaDistributed &&
                   wc.adm_master.size() == wc.particle.size();
  for (std::size_t c = 0; c < wc.particle.size(); ++c) {
    std::size_t source = c;  // the contact whose force this face takes
    double share = 1.0;
    if (adm && wc.adm_master[c] != kNoMaster) {
      source = wc.adm_master[c];
      share = wc.adm_fraction[c];
    } else if (!wc.active[c] || (adm && wc.adm_distributed[c])) {
      continue;  // no contact, or one whose force its faces' shares carry
    }
    const std::uint32_t f = wc.face[c];
    const Array3 on_wall = -share * wc.force[source];
    const Array3 elastic_on_wall = -share * wc.elastic_force[source];
    const Array3 n = faces_.has_plane[f] ? faces_.plane_normal[f] : wc.normal[c];
    const double normal = Dot(on_wall, n);
    const Array3 along_face = on_wall - normal * n;
    const std::array<double, 4>& weights = wc.weights[c];
    std::array<double, 4>& shares = face_normal_shares_[f];
    for (int k = 0; k < faces_.vertex_count[f]; ++k) {
      const IndexType node = faces_.nodes[f][k];
      const double w = weights[k];
      contact[node] += w * on_wall;
      elastic[node] += w * elastic_on_wall;
      tangential[node] += w * along_face;
      shares[k] += w * normal;
    }
  }
  // Nodal area: each face gives its vertices equal shares of its area; and
  // its normal shares, in magnitude, to their pressure.
  for (std::size_t f = 0; f < faces_.size(); ++f) {
    const int count = faces_.vertex_count[f];
    const double face_area = faces_.area[f];  // kept with the face's plane
    for (int k = 0; k < count; ++k) {
      const IndexType node = faces_.nodes[f][k];
      area[node] += face_area / count;
      pressure[node] += std::abs(face_normal_shares_[f][k]);
    }
  }
  // Divided by the area once per node (dividing per contact and vertex cost
  // an eighth of this output in the mixer).
  // Most nodes carry no contact: they keep their zeros without a division.
  for (const IndexType node : face_vertex_nodes_) {
    const double a = area[node];
    if (!(a > 0.0)) {
      pressure[node] = 0.0;
      continue;
    }
    if (pressure[node] != 0.0) pressure[node] /= a;
    const double along2 = Dot(tangential[node], tangential[node]);
    if (along2 != 0.0) shear[node] = std::sqrt(along2) / a;
  }
}

// ---------------------------------------------------------------- measures

double ExplicitSolverStrategy::MaximumSpeed() const {
  double speed = 0.0;
  for (const Array3& v : particles_.velocity) speed = std::max(speed, Norm(v));
  return speed;
}

double ExplicitSolverStrategy::KineticEnergy() const {
  const ParticleStorage& p = particles_;
  if (!clusters_.empty()) {  // members count with their cluster
    const EnergyTotals e = Energies();
    return e.kinetic_translational + e.kinetic_rotational;
  }
  return SumRows(p.size(), [&](std::size_t i) {
    return 0.5 * p.mass[i] * Dot(p.velocity[i], p.velocity[i]) +
           0.5 * p.inertia[i] * Dot(p.angular_velocity[i], p.angular_velocity[i]);
  });
}

double ExplicitSolverStrategy::ContactElasticEnergy() const {
  const EnergyTotals e = Energies();
  return e.elastic_normal + e.elastic_tangential;
}

EnergyTotals ExplicitSolverStrategy::Energies() const {
  EnergyTotals e = dissipated_;
  const ParticleStorage& p = particles_;
  // Cluster members count with their cluster (below), not as spheres.
  e.kinetic_translational = SumRows(p.size(), [&](std::size_t i) {
    return p.cluster[i] != 0 ? 0.0 : 0.5 * p.mass[i] * Dot(p.velocity[i], p.velocity[i]);
  });
  e.kinetic_rotational = SumRows(p.size(), [&](std::size_t i) {
    return p.cluster[i] != 0
               ? 0.0
               : 0.5 * p.inertia[i] * Dot(p.angular_velocity[i], p.angular_velocity[i]);
  });
  const Array3 g = settings_.gravity;
  e.gravitational_potential = SumRows(p.size(), [&](std::size_t i) {
    return p.cluster[i] != 0 ? 0.0 : -p.mass[i] * Dot(g, p.position[i]);
  });
  const RigidClusters& c = clusters_;
  for (std::size_t k = 0; k < c.size(); ++k) {
    e.kinetic_translational += 0.5 * c.mass[k] * Dot(c.velocity[k], c.velocity[k]);
    e.kinetic_rotational += 0.5 * Dot(c.angular_velocity[k], c.angular_momentum[k]);
    e.gravitational_potential -= c.mass[k] * Dot(g, c.centre[k]);
  }
  // Free walls are bodies of the system like the particles.
  for (const FreeRigidWall& body : free_walls_) {
    e.kinetic_translational += 0.5 * body.mass * Dot(body.velocity, body.velocity);
    e.kinetic_rotational += 0.5 * Dot(body.angular_velocity, body.angular_momentum);
    e.gravitational_potential -= body.mass * Dot(g, body.centre);
  }
  auto stored = [](const auto& contacts, std::size_t n, const std::vector<double>& values) {
    return SumRows(n, [&](std::size_t c) { return contacts.active[c] ? values[c] : 0.0; });
  };
  // The sphere pairs' from their histories (NormalElasticEnergy), the wall
  // contacts' as stored at their last evaluation.
  const PairContacts& pc = pairs_;
  e.elastic_normal = SumRows(pc.first.size(),
                             [&](std::size_t c) {
                               if (!pc.state[c]) return 0.0;
                               const PairParameters& pair =
                                   table_.Pair(p.material[pc.first[c]], p.material[pc.second[c]]);
                               return NormalElasticEnergy(pair, pc.history[c].normal_elastic_force,
                                                          pc.history[c].tangential_stiffness);
                             }) +
                     stored(wall_contacts_, wall_contacts_.particle.size(), wall_contacts_.energy);
  // The tangential spring's energy |F_te|² / (2 k_t) from the history the
  // contact keeps anyway (spring force and k_t of the last evaluation).
  auto spring_energy = [](bool active, const Array3& spring, double kt) {
    return active && kt > 0.0 ? 0.5 * Dot(spring, spring) / kt : 0.0;
  };
  const WallContacts& wc = wall_contacts_;
  e.elastic_tangential =
      SumRows(pc.first.size(),
              [&](std::size_t c) {
                const PairHistory& h = pc.history[c];
                return spring_energy(pc.state[c] != 0, h.tangential_force, h.tangential_stiffness);
              }) +
      SumRows(wc.particle.size(), [&](std::size_t c) {
        return spring_energy(wc.active[c] != 0, wc.tangential_force[c], wc.tangential_stiffness[c]);
      });
  const BondEnergy bonds = bonds_.ElasticEnergy();
  e.elastic_normal += bonds.normal;
  e.elastic_tangential += bonds.tangential;
  return e;
}

std::size_t ExplicitSolverStrategy::NumberOfParticleContacts() const {
  return static_cast<std::size_t>(std::count_if(pairs_.state.begin(), pairs_.state.end(),
                                                [](std::uint8_t s) { return s != 0; }));
}

std::size_t ExplicitSolverStrategy::NumberOfWallContacts() const {
  return static_cast<std::size_t>(
      std::count(wall_contacts_.active.begin(), wall_contacts_.active.end(), 1));
}

TimeStepEstimate ExplicitSolverStrategy::EstimateTimeStep(double reference_speed) const {
  TimeStepEstimate estimate;
  estimate.reference_speed = reference_speed;
  estimate.critical_time_step = std::numeric_limits<double>::infinity();
  estimate.contact_time = std::numeric_limits<double>::infinity();
  // The smallest sphere of each material has the fastest contacts (t_c grows
  // like the radius at a given speed and density).
  const std::size_t nm = table_.size();
  std::vector<double> radius(nm, 0.0), mass(nm, 0.0);
  for (std::size_t i = 0; i < particles_.size(); ++i) {
    const int m = particles_.material[i];
    if (radius[m] == 0.0 || particles_.radius[i] < radius[m]) {
      radius[m] = particles_.radius[i];
      mass[m] = particles_.mass[i];
    }
  }
  // Spheres still to come (inlets) with their smallest radius.
  for (const auto& [properties, r] : registered_materials_) {
    const int m = material_index_.Find(properties);
    if (m < 0 || !(r > 0.0) || (radius[m] != 0.0 && radius[m] <= r)) continue;
    radius[m] = r;
    mass[m] = properties->GetValue(PARTICLE_DENSITY) * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  }
  std::vector<bool> is_wall_material(nm, false);
  for (int m : faces_.material) is_wall_material[m] = true;
  for (std::size_t a = 0; a < nm; ++a) {
    if (radius[a] == 0.0) continue;  // not a particle material in use
    // Each other material as a sphere and, where faces use it (spheres and
    // walls may share one), as a wall.
    for (std::size_t b = 0; b < nm; ++b)
      for (const bool wall : {false, true}) {
        if (wall ? !is_wall_material[b] : (radius[b] == 0.0 || b < a)) continue;
        const PairParameters& pair = wall
                                         ? table_.WallPair(static_cast<int>(a), static_cast<int>(b))
                                         : table_.Pair(static_cast<int>(a), static_cast<int>(b));
        if (!pair.defined) continue;
        const double r = wall ? radius[a] : radius[a] * radius[b] / (radius[a] + radius[b]);
        // Virtual mass: the spheres respond as if their masses were m / c.
        const double m = (wall ? mass[a] : mass[a] * mass[b] / (mass[a] + mass[b])) /
                         settings_.virtual_mass_coefficient;
        double kn, tc;
        if (pair.law != ContactLaw::kHertzViscousCoulomb) {
          kn = LinearNormalStiffness(pair.law, pair.effective_young, r);
          tc = std::numbers::pi * std::sqrt(m / kn);
        } else {
          const double v = std::max(reference_speed, 1e-12);
          // Hertz impact at speed v (thesis Appendix A): gamma = 16 E* sqrt(R) /
          // (15 m), overlap (1/gamma)^(2/5) v^(4/5) (A.17), t_c = 2.94328 overlap / v (A.19).
          const double gamma = 16.0 * pair.effective_young * std::sqrt(r) / (15.0 * m);
          const double overlap = std::pow(1.0 / gamma, 0.4) * std::pow(v, 0.8);
          tc = 2.94328 * overlap / v;
          kn = 2.0 * pair.effective_young * std::sqrt(r * overlap);
        }
        // The tangential spring acts on a reduced mass (translation and rotation of
        // a solid sphere: 1/m + R^2/I = 3.5/m; of a disc, I = m R^2 / 2: 3/m); take
        // the stiffer of the two modes.
        const double kt = kn * 4.0 * pair.effective_shear / pair.effective_young;
        const double reduced = settings_.dimension == 2 ? 3.0 : 3.5;
        const double omega = std::max(std::sqrt(kn / m), std::sqrt(kt * reduced / m));
        const double xi = pair.damping_ratio;
        const double critical = 2.0 / omega * (std::sqrt(1.0 + xi * xi) - xi);
        estimate.critical_time_step = std::min(estimate.critical_time_step, critical);
        if (tc < estimate.contact_time) {
          estimate.contact_time = tc;
          estimate.contact_time_pair = "material " +
                                       std::to_string(material_index_.List()[a]->Id()) +
                                       (wall ? " against wall material " : " against material ") +
                                       std::to_string(material_index_.List()[b]->Id());
        }
      }
  }
  // Bonds: a bonded sphere vibrates faster than one bond says (continuum_bonds.h).
  if (!bonds_.empty())
    estimate.critical_time_step =
        std::min(estimate.critical_time_step,
                 bonds_.CriticalTimeStep(particles_, settings_.virtual_mass_coefficient));
  return estimate;
}

}  // namespace tessera::dem
