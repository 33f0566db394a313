// Particles come and go: spheres inserted between steps (inlets) or created
// by a script, deleted by the bounding box or at the start (touching walls,
// embedded, indentations cleaned), and wrapped into a periodic domain.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "applications/dem/dem_variables.h"
#include "applications/dem/particles/initial_overlaps.h"
#include "applications/dem/particles/row_removal.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "applications/dem/utilities/parallel_rows.h"
#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {

void ExplicitSolverStrategy::RegisterParticleMaterial(const Properties* properties,
                                                      double smallest_radius) {
  if (initialized_)
    TESSERA_ERROR(
        "RegisterParticleMaterial: the DEM strategy is initialised already; register "
        "the materials of inserted particles before Initialize()");
  registered_materials_.emplace_back(properties, smallest_radius);
}

void ExplicitSolverStrategy::SetParticleMaterialOrder(std::vector<IdType> properties_ids) {
  if (initialized_)
    TESSERA_ERROR("SetParticleMaterialOrder: the DEM strategy is initialised already");
  // (A cluster material: the cluster model part's, set before this.)
  for (IdType id : properties_ids)
    if (!spheres_.HasProperties(id) &&
        (clusters_part_ == nullptr || !clusters_part_->HasProperties(id)))
      TESSERA_ERROR("SetParticleMaterialOrder: the spheres' model part '", spheres_.FullName(),
                    "' has no Properties ", id,
                    clusters_part_ != nullptr ? ", nor has the cluster model part" : "");
  particle_material_order_ = std::move(properties_ids);
}

void ExplicitSolverStrategy::InsertParticles(const std::vector<NewParticle>& particles,
                                             bool search_follows) {
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
  StartNewRows(first_new, search_follows);
}

void ExplicitSolverStrategy::StartNewRows(std::size_t first_new, bool search_follows) {
  increments_are_velocity_steps_ = false;  // the newcomers have made no increment
  // Their force until the next evaluation is their weight.
  for (std::size_t row = first_new; row < particles_.size(); ++row)
    particles_.force[row] = particles_.mass[row] * settings_.gravity;
  StartGearRows(first_new);  // Gear: a = that weight's acceleration
  // Their DEM_STRESS_TENSOR until the next force pass: no contact yet.
  if (keep_contact_forces_) {
    auto* stress = spheres_.Nodal().HistoricalColumn(DEM_STRESS_TENSOR).Data();
    for (std::size_t row = first_new; row < particles_.size(); ++row)
      stress[particles_.node[row]] = Matrix::Zero(3, 3);
  }
  if (settings_.periodic) WrapIntoPeriodicBox(first_new);
  // The search that follows finds them as new contacts, as this would.
  if (!search_follows) AddCandidatesOfNewRows(first_new);
  ShareRowsWithNodes();
  // Their candidates were found where they are now: the adaptive search
  // measures their displacement from there (the search that follows
  // remembers every row's).
  if (!search_follows && AdaptiveSearchArmed() && search_position_.size() == first_new)
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

void ExplicitSolverStrategy::RemoveParticles(const std::vector<std::uint8_t>& keep) {
  const std::vector<std::uint32_t> new_index = RemoveRows(spheres_, particles_, clusters_, keep);
  glued_.Renumber(new_index);
  bonds_.Renumber(new_index);

  // Contacts keep their histories under the new numbering (the map is monotonic,
  // so the lists stay sorted).
  auto remap_pairs = [&](PairContacts& p) {
    std::size_t out = 0;
    for (std::size_t c = 0; c < p.first.size(); ++c) {
      const std::uint32_t a = new_index[p.first[c]], b = new_index[p.second[c]];
      if (a == kRemovedRow || b == kRemovedRow) continue;
      p.first[out] = a;
      p.second[out] = b;
      p.history[out] = p.history[c];
      if (p.keeps_extra_history) p.extra_history[out] = p.extra_history[c];
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
    if (a == kRemovedRow) continue;
    w.particle[out] = a;
    w.face[out] = w.face[c];
    w.tangential_force[out] = w.tangential_force[c];
    w.tangential_stiffness[out] = w.tangential_stiffness[c];
    w.normal_elastic_force[out] = w.normal_elastic_force[c];
    w.sliding[out] = w.sliding[c];
    w.active[out] = w.active[c];
    if (w.keeps_extra_history) w.extra_history[out] = w.extra_history[c];
    w.point[out] = w.point[c];
    ++out;
  }
  w.Resize(out);
}

bool ExplicitSolverStrategy::RemoveOutsideBoundingBox(double time) {
  // A periodic box wraps its spheres instead (WrapIntoPeriodicBox).
  if (!BoundingBoxDeletesAt(settings_, time)) return false;
  const RowsToKeep keep =
      RowsOutsideBox(particles_, clusters_, settings_.bounding_box_min, settings_.bounding_box_max);
  if (!keep.any_row) return false;
  RemoveParticles(keep.rows);
  if (keep.any_cluster) RemoveClusters(*clusters_part_, clusters_, particles_, keep.clusters);
  return true;
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
  if (initial_shrinks_)  // for the serial start's shrinks (SetInitialShrinks)
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (!keep[i]) deleted_touching_walls_.push_back(particles_.element_id[i]);
  RemoveParticles(keep);
  Search(time);
}

void ExplicitSolverStrategy::CleanInitialIndentations() {
  // Each overlapping pair (in list order) is shrunk until it just touches
  // (initial_overlaps.h); masses follow the new radii. From pieces the
  // shrinks are the serial run's, given (SetInitialShrinks): applied to
  // this piece's rows in their order.
  ParticleStorage& p = particles_;
  bool changed = false;
  if (!initial_shrinks_) {
    const std::vector<Shrink> shrinks =
        ShrinkOverlappingPairs(pairs_.first, pairs_.second, p.position, p.cluster,
                               settings_.periodic ? periodic_ : PeriodicBox{}, p.radius);
    for (const Shrink& s : shrinks) ShrinkMass(s.factor, p.mass[s.sphere], p.inertia[s.sphere]);
    changed = !shrinks.empty();
  } else {
    const InitialShrinks given = initial_shrinks_(deleted_touching_walls_);
    deleted_touching_walls_ = std::vector<IdType>{};
    std::unordered_map<IdType, std::uint32_t> row_of;
    row_of.reserve(p.size());
    for (std::size_t i = 0; i < p.size(); ++i)
      row_of.emplace(p.element_id[i], static_cast<std::uint32_t>(i));
    for (std::size_t k = 0; k < given.element_ids.size(); ++k) {
      const auto row = row_of.find(given.element_ids[k]);
      if (row == row_of.end()) continue;  // another rank's sphere
      const double factor = given.factors[k];
      p.radius[row->second] *= factor;
      ShrinkMass(factor, p.mass[row->second], p.inertia[row->second]);
    }
    // (Searched again where the serial run shrank anything, as it does.)
    changed = !given.element_ids.empty();
  }
  if (changed) Search(spheres_.GetProcessInfo().GetValue(TIME));
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

}  // namespace tessera::dem
