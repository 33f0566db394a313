// The DEM strategy's and inlets' state <-> checkpoint datasets (dem_checkpoint.h).
//
// Every member is written as the bytes of its vector (or value) under its own
// name, and read back into the same member: a restored double is bitwise the
// saved one, and a struct of plain values (a pair history, a bond's
// constants) goes whole, so a field added to it travels without a change
// here. The one list of members, Visit(), serves saving and loading alike.
#include "applications/dem/io/dem_checkpoint.h"

#include <cstring>
#include <functional>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "applications/dem/inlets/particle_inlet.h"
#include "applications/dem/nonsmooth/moreau_jean_strategy.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"
#include "kernel/core/flags.h"
#include "kernel/io/checkpoint_file.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {

namespace {

std::string Join(const std::string& group, const std::string& name) { return group + "/" + name; }

class Saver {
 public:
  Saver(CheckpointWriter& writer, std::string group) : writer_(writer), group_(std::move(group)) {}

  template <class T>
  void Column(const std::string& name, const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>, "a column is saved as its bytes");
    writer_.WriteBytes(Join(group_, name), values.data(), values.size() * sizeof(T));
  }
  template <class T>
  void Column(const std::string& name, const RowColumn<T>& values) {
    Column(name, values.Values());
  }
  // A vector of vectors: the lengths, then the values end to end.
  template <class T>
  void Nested(const std::string& name, const std::vector<std::vector<T>>& values) {
    std::vector<std::uint64_t> lengths;
    std::vector<T> flat;
    for (const auto& v : values) {
      lengths.push_back(v.size());
      flat.insert(flat.end(), v.begin(), v.end());
    }
    Column(name + "/Lengths", lengths);
    Column(name + "/Values", flat);
  }
  template <class T>
  void Value(const std::string& name, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "a value is saved as its bytes");
    writer_.WriteBytes(Join(group_, name), &value, sizeof(T));
  }

 private:
  CheckpointWriter& writer_;
  std::string group_;
};

class Loader {
 public:
  Loader(const CheckpointReader& reader, std::string group)
      : reader_(reader), group_(std::move(group)) {}

  template <class T>
  void Column(const std::string& name, std::vector<T>& values) {
    const std::vector<std::uint8_t> bytes = Read(name);
    if (bytes.size() % sizeof(T) != 0)
      TESSERA_ERROR("checkpoint ", reader_.Path(), ": ", Join(group_, name), " holds ",
                    bytes.size(), " bytes, not a whole number of ", sizeof(T),
                    "-byte entries (written by another Tessera?)");
    values.resize(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(static_cast<void*>(values.data()), bytes.data(), bytes.size());
  }
  template <class T>
  void Column(const std::string& name, RowColumn<T>& values) {
    Column(name, values.Values());
  }
  template <class T>
  void Nested(const std::string& name, std::vector<std::vector<T>>& values) {
    std::vector<std::uint64_t> lengths;
    std::vector<T> flat;
    Column(name + "/Lengths", lengths);
    Column(name + "/Values", flat);
    values.assign(lengths.size(), {});
    std::size_t at = 0;
    for (std::size_t k = 0; k < lengths.size(); ++k) {
      TESSERA_CHECK(at + lengths[k] <= flat.size(), "checkpoint ", reader_.Path(), ": ",
                    Join(group_, name), " is shorter than its lengths say (damaged file)");
      values[k].assign(flat.begin() + static_cast<std::ptrdiff_t>(at),
                       flat.begin() + static_cast<std::ptrdiff_t>(at + lengths[k]));
      at += lengths[k];
    }
  }
  template <class T>
  void Value(const std::string& name, T& value) {
    const std::vector<std::uint8_t> bytes = Read(name);
    TESSERA_CHECK(bytes.size() == sizeof(T), "checkpoint ", reader_.Path(), ": ",
                  Join(group_, name), " holds ", bytes.size(), " bytes where ", sizeof(T),
                  " were expected (written by another Tessera?)");
    std::memcpy(static_cast<void*>(&value), bytes.data(), sizeof(T));
  }

 private:
  std::vector<std::uint8_t> Read(const std::string& name) const {
    const std::string path = Join(group_, name);
    if (!reader_.Has(path))
      TESSERA_ERROR("checkpoint ", reader_.Path(), " has no ", path,
                    ": its DEM state lacks this part (written by another deck, another "
                    "strategy or an older Tessera?)");
    return reader_.ReadBytes(path);
  }
  const CheckpointReader& reader_;
  std::string group_;
};

// Deletes the elements and nodes of `part` (a root) whose ids the checkpoint
// does not hold: those a run deleted after its start.
void RemoveEntitiesNotSaved(ModelPart& part, const std::vector<std::int64_t>& saved_nodes,
                            const std::vector<std::int64_t>& saved_elements) {
  NodalDatabase& db = part.Nodal();
  const std::unordered_set<std::int64_t> node_set(saved_nodes.begin(), saved_nodes.end());
  const std::unordered_set<std::int64_t> element_set(saved_elements.begin(), saved_elements.end());
  bool any = false;
  for (Element& element : part.Elements())
    if (element_set.count(element.Id()) == 0) {
      element.Set(TO_ERASE, true);
      any = true;
    }
  for (IndexType i = 0; i < db.Size(); ++i)
    if (node_set.count(db.Id(i)) == 0) {
      Node(&db, i).Set(TO_ERASE, true);
      any = true;
    }
  if (any) {
    part.RemoveElementsFlagged(TO_ERASE);
    part.RemoveNodesFlagged(TO_ERASE);
  }
}

// Puts the elements of `part` (a root) in the order `saved` (LoadModelPart
// reads them by position): those a run kept since its start come first, in
// that order, and the ones made since follow. A rank of a distributed run
// also holds elements that arrived between others (rows in key order, and
// their clusters after them): the elements from the first one out of place
// on are taken out, each kept as a copy of its own class, and put back in
// the saved order; create(k) makes the saved element k the part lacks.
void PutElementsInSavedOrder(ModelPart& part, const std::vector<std::int64_t>& saved,
                             const std::function<void(std::size_t)>& create) {
  std::size_t in_place = 0;
  {
    const auto elements = part.Elements();
    for (auto it = elements.begin(); it != elements.end() && in_place < saved.size();
         ++it, ++in_place)
      if ((*it).Id() != static_cast<IdType>(saved[in_place])) break;
  }
  std::unordered_map<IdType, Element::Pointer> taken_out;
  if (in_place < part.NumberOfElements()) {
    std::size_t k = 0;
    for (Element& element : part.Elements())
      if (k++ >= in_place) {
        taken_out[element.Id()] =
            element.Create(element.Id(), element.GetGeometry(), element.GetPropertiesPointer());
        element.Set(TO_ERASE, true);
      }
    part.RemoveElementsFlagged(TO_ERASE);
  }
  for (std::size_t k = 0; k < saved.size(); ++k) {
    const IdType id = static_cast<IdType>(saved[k]);
    if (const auto copy = taken_out.find(id); copy != taken_out.end()) {
      part.AddElement(std::move(copy->second));
      continue;
    }
    if (!part.HasElement(id)) create(k);
  }
}

// The members that both strategies keep alike: the particle rows (every
// column), the wall faces, the rigid clusters.
template <class Archive, class Rows>
void VisitParticleRows(Rows& p, Archive& a) {
  a.Column("Particles/position", p.position);
  a.Column("Particles/velocity", p.velocity);
  a.Column("Particles/angular_velocity", p.angular_velocity);
  a.Column("Particles/displacement", p.displacement);
  a.Column("Particles/delta_displacement", p.delta_displacement);
  a.Column("Particles/delta_rotation", p.delta_rotation);
  a.Column("Particles/rotation_angle", p.rotation_angle);
  a.Column("Particles/external_force", p.external_force);
  a.Column("Particles/external_moment", p.external_moment);
  a.Column("Particles/force", p.force);
  a.Column("Particles/torque", p.torque);
  a.Column("Particles/contact_force", p.contact_force);
  a.Column("Particles/elastic_force", p.elastic_force);
  a.Column("Particles/radius", p.radius);
  a.Column("Particles/mass", p.mass);
  a.Column("Particles/inertia", p.inertia);
  a.Column("Particles/material", p.material);
  a.Column("Particles/node", p.node);
  a.Column("Particles/element_id", p.element_id);
  a.Column("Particles/fixed", p.fixed);
  a.Column("Particles/glued", p.glued);
  a.Column("Particles/cluster", p.cluster);
  // Gear_Predictor_Corrector's derivatives (no rows under the other schemes).
  a.Value("Particles/has_gear", p.has_gear);
  a.Value("Particles/has_gear_angular", p.has_gear_angular);
  for (int k = 0; k < 3; ++k) {
    a.Column("Particles/gear_" + std::to_string(k), p.gear[k]);
    a.Column("Particles/gear_angular_" + std::to_string(k), p.gear_angular[k]);
  }
}

template <class Archive, class Faces>
void VisitFaces(Faces& f, Archive& a) {
  a.Column("Faces/points", f.points);
  a.Column("Faces/velocities", f.velocities);
  a.Column("Faces/delta_displacement", f.delta_displacement);
  a.Column("Faces/still", f.still);
  a.Column("Faces/nodes", f.nodes);
  a.Column("Faces/vertex_count", f.vertex_count);
  a.Column("Faces/material", f.material);
  a.Column("Faces/condition_id", f.condition_id);
  a.Column("Faces/boxes_min", f.boxes.min);
  a.Column("Faces/boxes_max", f.boxes.max);
  a.Column("Faces/plane_normal", f.plane_normal);
  a.Column("Faces/plane_origin", f.plane_origin);
  a.Column("Faces/has_plane", f.has_plane);
  a.Column("Faces/convex", f.convex);
  a.Column("Faces/warp", f.warp);
  a.Column("Faces/area", f.area);
}

template <class Archive, class Clusters>
void VisitClusters(Clusters& c, Archive& a) {
  a.Column("Clusters/element_id", c.element_id);
  a.Column("Clusters/node", c.node);
  a.Column("Clusters/centre", c.centre);
  a.Column("Clusters/velocity", c.velocity);
  a.Column("Clusters/angular_velocity", c.angular_velocity);
  a.Column("Clusters/angular_momentum", c.angular_momentum);
  a.Column("Clusters/displacement", c.displacement);
  a.Column("Clusters/orientation", c.orientation);
  a.Column("Clusters/mass", c.mass);
  a.Column("Clusters/inertia", c.inertia);
  a.Column("Clusters/force", c.force);
  a.Column("Clusters/torque", c.torque);
  a.Column("Clusters/delta_rotation", c.delta_rotation);
  a.Column("Clusters/first_row", c.first_row);
  a.Column("Clusters/row_count", c.row_count);
  a.Column("Clusters/first_member_element", c.first_member_element);
  a.Nested("Clusters/member_offset", c.member_offset);
}

}  // namespace

// Friend of ParticleInlets: their counters and random generators.
struct InletsCheckpointAccess {
  // The properties and element type of the inlet whose material has id
  // `id`; false where no inlet has it.
  static bool FindMaterial(const ParticleInlets& inlets, IdType id, Properties::Pointer& properties,
                           std::string& type) {
    for (const auto& inlet : inlets.inlets_)
      if (inlet.properties && inlet.properties->Id() == id) {
        properties = inlet.properties;
        type = inlet.element_type;
        return true;
      }
    return false;
  }

  template <class Inlets, class Archive>
  static void Visit(Inlets& inlets, Archive& a) {
    std::uint64_t count = inlets.inlets_.size();
    a.Value("Count", count);
    TESSERA_CHECK(count == inlets.inlets_.size(), "the checkpoint holds ", count,
                  " inlets where this run has ", inlets.inlets_.size(), " (another deck?)");
    a.Value("next_node_id", inlets.next_node_id_);
    a.Value("next_element_id", inlets.next_element_id_);
    for (std::size_t k = 0; k < inlets.inlets_.size(); ++k) {
      auto& inlet = inlets.inlets_[k];
      const std::string g = std::to_string(k) + "/";
      std::uint64_t placement = inlet.placement.State(), sizes = inlet.sizes.State();
      a.Value(g + "placement_random", placement);
      a.Value(g + "sizes_random", sizes);
      a.Value(g + "injected_count", inlet.injected_count);
      a.Value(g + "injected_mass", inlet.injected_mass);
      a.Value(g + "pending_radius", inlet.pending_radius);
      if constexpr (!std::is_const_v<Inlets>) {
        inlet.placement.SetState(placement);
        inlet.sizes.SetState(sizes);
      }
    }
  }
};

// Friend of ExplicitSolverStrategy: the list of its members that live across steps.
struct StrategyCheckpointAccess {
  template <class Strategy, class Archive>
  static void Visit(Strategy& s, Archive& a) {
    VisitParticleRows(s.particles_, a);
    VisitFaces(s.faces_, a);
    a.Column("Faces/normal_shares", s.face_normal_shares_);

    // The free walls' motion (their parts, masses and nodes come from the deck).
    std::uint64_t free_walls = s.free_walls_.size();
    a.Value("FreeWalls/Count", free_walls);
    TESSERA_CHECK(free_walls == s.free_walls_.size(), "the checkpoint holds ", free_walls,
                  " FREE_BODY_MOTION walls where this run has ", s.free_walls_.size(),
                  " (another deck?)");
    for (std::size_t k = 0; k < s.free_walls_.size(); ++k) {
      auto& w = s.free_walls_[k];
      const std::string g = "FreeWalls/" + std::to_string(k) + "/";
      a.Value(g + "centre", w.centre);
      a.Value(g + "velocity", w.velocity);
      a.Value(g + "angular_velocity", w.angular_velocity);
      a.Value(g + "angular_momentum", w.angular_momentum);
      a.Value(g + "rotation", w.rotation);
      a.Value(g + "applied_force", w.applied_force);
      a.Value(g + "applied_moment", w.applied_moment);
      a.Value(g + "contact_force", w.contact_force);
      a.Value(g + "contact_moment", w.contact_moment);
      if (s.particles_.has_gear) a.Value(g + "gear", w.gear);
    }

    a.Column("Glued/row", s.glued_.row);
    a.Column("Glued/reference", s.glued_.reference);

    VisitClusters(s.clusters_, a);

    auto& b = s.bonds_;
    a.Column("Bonds/first", b.first);
    a.Column("Bonds/second", b.second);
    a.Column("Bonds/constants", b.constants);
    a.Column("Bonds/law", b.law);
    a.Column("Bonds/state", b.state);
    a.Column("Bonds/opened", b.opened);
    a.Value("Bonds/state_stride", b.state_stride);
    a.Column("Bonds/law_state", b.law_state);
    a.Column("Bonds/failure_criterion", b.failure_criterion);
    a.Column("Bonds/normal_force", b.normal_force);
    a.Column("Bonds/shear_force", b.shear_force);
    a.Column("Bonds/moment", b.moment);
    a.Column("Bonds/direction", b.direction);
    a.Column("Bonds/force", b.force);
    a.Column("Bonds/elastic", b.elastic);
    a.Column("Bonds/torque_second", b.torque_second);
    a.Column("Bonds/damping_power", b.damping_power);
    a.Column("Bonds/friction_power", b.friction_power);
    a.Column("Bonds/first_start", b.first_start);
    a.Column("Bonds/row_start", b.row_start);
    a.Column("Bonds/row_bonds", b.row_bonds);
    a.Column("Bonds/constant_table", b.constant_table);
    a.Column("Bonds/constant_index", b.constant_index);
    a.Value("Bonds/uniform_law", b.uniform_law);
    a.Value("Bonds/power", s.bond_power_);

    auto& pc = s.pairs_;
    a.Column("PairContacts/first", pc.first);
    a.Column("PairContacts/second", pc.second);
    a.Column("PairContacts/history", pc.history);
    // The side table of the laws that keep more history (contact_force.h):
    // empty unless the run's pairs use such a law (Initialize decides, before
    // a load, from the same materials).
    a.Column("PairContacts/extra_history", pc.extra_history);
    a.Column("PairContacts/state", pc.state);
    a.Column("PairContacts/first_start", pc.first_start);
    a.Column("PairContacts/cross_block_start", pc.cross_block_start);
    a.Column("PairContacts/cross_row_start", pc.cross_row_start);
    a.Column("PairContacts/cross_row_slot", pc.cross_row_slot);
    a.Column("PairContacts/cross_force", pc.cross_force);
    a.Column("PairContacts/cross_elastic", pc.cross_elastic);
    a.Column("PairContacts/cross_torque", pc.cross_torque);
    a.Column("PairContacts/earliest_source_block", pc.earliest_source_block);
    a.Column("PairContacts/latest_target_block", pc.latest_target_block);

    auto& wc = s.wall_contacts_;
    a.Column("WallContacts/particle", wc.particle);
    a.Column("WallContacts/face", wc.face);
    a.Column("WallContacts/tangential_force", wc.tangential_force);
    a.Column("WallContacts/tangential_stiffness", wc.tangential_stiffness);
    a.Column("WallContacts/normal_elastic_force", wc.normal_elastic_force);
    a.Column("WallContacts/sliding", wc.sliding);
    a.Column("WallContacts/active", wc.active);
    a.Column("WallContacts/extra_history", wc.extra_history);
    a.Column("WallContacts/force", wc.force);
    a.Column("WallContacts/elastic_force", wc.elastic_force);
    a.Column("WallContacts/rolling", wc.rolling);
    a.Column("WallContacts/energy", wc.energy);
    a.Column("WallContacts/dissipation", wc.dissipation);
    a.Column("WallContacts/weights", wc.weights);
    a.Column("WallContacts/normal", wc.normal);
    a.Column("WallContacts/point", wc.point);
    a.Column("WallContacts/adm_master", wc.adm_master);
    a.Column("WallContacts/adm_fraction", wc.adm_fraction);
    a.Column("WallContacts/adm_distributed", wc.adm_distributed);
    a.Column("WallContacts/adm_gradient_force", wc.adm_gradient_force);
    a.Column("WallContacts/adm_vertex_force", wc.adm_vertex_force);
    a.Column("WallContacts/particle_start", wc.particle_start);

    a.Column("Energy/global_damping_power", s.global_damping_power_);
    a.Column("Energy/pair_dissipation", s.pair_dissipation_);
    a.Value("Energy/dissipated", s.dissipated_);

    a.Value("Search/step", s.step_);
    a.Column("Search/search_position", s.search_position_);
    a.Column("Search/search_face_points", s.search_face_points_);
    a.Value("Search/wall_displacement", s.wall_displacement_);
    a.Value("Search/searches", s.searches_);
    a.Value("Search/early_searches", s.early_searches_);
    a.Value("Search/increments_are_velocity_steps", s.increments_are_velocity_steps_);
    a.Value("Search/last_sort_step", s.last_sort_step_);
    a.Value("Search/sorted_once", s.sorted_once_);
    a.Value("Search/longest_lists", s.longest_lists_);
    a.Value("TimeStep", s.settings_.delta_time);
  }

  static void Save(const ExplicitSolverStrategy& s, CheckpointWriter& writer,
                   const std::string& group) {
    TESSERA_CHECK(s.initialized_, "checkpoint ", writer.Path(),
                  ": the DEM strategy is saved only after Initialize()");
    Saver saver(writer, group);
    Visit(s, saver);
    // The node id of each row, for PrepareSpheresForCheckpoint (row order).
    const NodalDatabase& db = s.spheres_.Nodal();
    std::vector<std::int64_t> node_ids(s.particles_.size());
    for (std::size_t i = 0; i < node_ids.size(); ++i) node_ids[i] = db.Id(s.particles_.node[i]);
    writer.Write(Join(group, "Particles/node_id"), node_ids);
  }

  static void Prepare(ExplicitSolverStrategy& s, const ParticleInlets* inlets,
                      const CheckpointReader& reader, const std::string& group,
                      const std::string& spheres_group);

  static void Load(ExplicitSolverStrategy& s, const CheckpointReader& reader,
                   const std::string& group) {
    TESSERA_CHECK(s.initialized_, "checkpoint ", reader.Path(),
                  ": the DEM strategy must be initialised before its state is loaded");
    // The rows own their columns while they are overwritten; they share the
    // nodal ones again below where the layout allows (the values agree: the
    // model parts were loaded first).
    s.particles_.OwnColumns();
    Loader loader(reader, group);
    Visit(s, loader);
    TESSERA_CHECK(s.particles_.node.size() == s.particles_.radius.size() &&
                      s.particles_.position.size() == s.particles_.radius.size(),
                  "checkpoint ", reader.Path(), ": the DEM rows' columns disagree in length");
    for (IndexType node : s.particles_.node)
      TESSERA_CHECK(node < s.spheres_.Nodal().Size(), "checkpoint ", reader.Path(),
                    ": a DEM row refers to node position ", node, " of ", s.spheres_.Nodal().Size(),
                    " (the spheres' model part is not the saved one)");
    s.SetDeltaTime(s.settings_.delta_time);
    s.ShareRowsWithNodes();
  }
};

void StrategyCheckpointAccess::Prepare(ExplicitSolverStrategy& s, const ParticleInlets* inlets,
                                       const CheckpointReader& reader, const std::string& group,
                                       const std::string& spheres_group) {
  ModelPart& spheres = s.spheres_;
  NodalDatabase& db = spheres.Nodal();
  for (const std::string& name :
       {Join(group, "Particles/element_id"), Join(group, "Particles/node_id"),
        Join(spheres_group, "Nodes/Ids"), Join(spheres_group, "Elements/Ids")})
    if (!reader.Has(name))
      TESSERA_ERROR("checkpoint ", reader.Path(), " has no ", name,
                    ": it holds no DEM run's spheres (written by another deck or stage?)");
  std::vector<IdType> row_elements;
  Loader(reader, group).Column("Particles/element_id", row_elements);
  const std::vector<std::int64_t> row_nodes = reader.ReadInt64(Join(group, "Particles/node_id"));
  TESSERA_CHECK(row_nodes.size() == row_elements.size(), "checkpoint ", reader.Path(), ": ", group,
                " has ", row_elements.size(), " rows but ", row_nodes.size(), " row node ids");
  std::unordered_map<IdType, IdType> node_of_element;
  for (std::size_t k = 0; k < row_elements.size(); ++k)
    node_of_element[row_elements[k]] = static_cast<IdType>(row_nodes[k]);

  const std::vector<std::int64_t> saved_nodes = reader.ReadInt64(Join(spheres_group, "Nodes/Ids"));
  const std::vector<std::int64_t> saved_elements =
      reader.ReadInt64(Join(spheres_group, "Elements/Ids"));
  const std::vector<std::int64_t> saved_properties =
      reader.ReadInt64(Join(spheres_group, "Elements/PropertiesIds"));
  TESSERA_CHECK(saved_properties.size() == saved_elements.size(), "checkpoint ", reader.Path(),
                ": ", spheres_group, "/Elements disagree in length (damaged file)");

  // Spheres deleted since the start (bounding box): elements and nodes.
  RemoveEntitiesNotSaved(spheres, saved_nodes, saved_elements);

  // Clusters deleted since the start (bounding box): their elements and centre
  // nodes. A rank of a distributed run also holds clusters that arrived
  // since (distributed_clusters.cpp): made again, centre node and element, in
  // the saved order; their values come with LoadModelPart.
  if (s.clusters_part_ != nullptr) {
    ModelPart& clusters = *s.clusters_part_;
    const std::string clusters_group =
        spheres_group.substr(0, spheres_group.rfind('/') + 1) + clusters.Name();
    if (reader.Has(Join(clusters_group, "Elements/Ids"))) {
      const std::vector<std::int64_t> cluster_nodes =
          reader.ReadInt64(Join(clusters_group, "Nodes/Ids"));
      const std::vector<std::int64_t> cluster_elements =
          reader.ReadInt64(Join(clusters_group, "Elements/Ids"));
      const std::vector<std::int64_t> cluster_properties =
          reader.ReadInt64(Join(clusters_group, "Elements/PropertiesIds"));
      TESSERA_CHECK(cluster_properties.size() == cluster_elements.size(), "checkpoint ",
                    reader.Path(), ": ", clusters_group,
                    "/Elements disagree in length (damaged file)");
      RemoveEntitiesNotSaved(clusters, cluster_nodes, cluster_elements);
      // Each saved cluster's centre node: its position in the saved nodes.
      std::vector<IdType> row_clusters;
      std::vector<IndexType> row_cluster_nodes;
      Loader(reader, group).Column("Clusters/element_id", row_clusters);
      Loader(reader, group).Column("Clusters/node", row_cluster_nodes);
      TESSERA_CHECK(row_clusters.size() == row_cluster_nodes.size(), "checkpoint ", reader.Path(),
                    ": ", group, "/Clusters element ids and nodes disagree in length");
      std::unordered_map<IdType, IndexType> node_of_cluster;
      for (std::size_t k = 0; k < row_clusters.size(); ++k)
        node_of_cluster[row_clusters[k]] = row_cluster_nodes[k];
      NodalDatabase& cluster_db = clusters.Nodal();
      PutElementsInSavedOrder(clusters, cluster_elements, [&](std::size_t k) {
        const IdType id = static_cast<IdType>(cluster_elements[k]);
        const auto node = node_of_cluster.find(id);
        if (node == node_of_cluster.end() || node->second >= cluster_nodes.size())
          TESSERA_ERROR("checkpoint ", reader.Path(), ": element ", id, " of ", clusters_group,
                        " is no rigid cluster of ", group, " (damaged file?)");
        const IdType property_id = static_cast<IdType>(cluster_properties[k]);
        if (!clusters.HasProperties(property_id))
          TESSERA_ERROR("checkpoint ", reader.Path(), ": cluster element ", id, " has properties ",
                        property_id, ", which the clusters' model part of this deck has not",
                        " (another deck?)");
        const IdType node_id = static_cast<IdType>(cluster_nodes[node->second]);
        if (!cluster_db.HasNode(node_id)) clusters.CreateNewNode(node_id, 0.0, 0.0, 0.0);
        const IdType node_ids[1] = {node_id};
        clusters.CreateNewElement("Cluster3D", id, node_ids, clusters.GetProperties(property_id));
      });
    }
  }

  // Spheres created since the start (inlets, arrivals), in the saved order.
  const std::string default_type =
      s.settings_.dimension == 2 ? "CylinderParticle2D" : "SphericParticle3D";
  PutElementsInSavedOrder(spheres, saved_elements, [&](std::size_t k) {
    const IdType id = static_cast<IdType>(saved_elements[k]);
    const auto node = node_of_element.find(id);
    if (node == node_of_element.end())
      TESSERA_ERROR("checkpoint ", reader.Path(), ": element ", id, " of ", spheres_group,
                    " is no DEM row of ", group, " (damaged file?)");
    const IdType property_id = static_cast<IdType>(saved_properties[k]);
    Properties::Pointer properties;
    std::string type = default_type;
    if (spheres.HasProperties(property_id)) properties = spheres.GetProperties(property_id);
    Properties::Pointer inlet_properties;
    if (inlets != nullptr &&
        InletsCheckpointAccess::FindMaterial(*inlets, property_id, inlet_properties, type) &&
        !properties)
      properties = inlet_properties;
    if (!properties)
      TESSERA_ERROR("checkpoint ", reader.Path(), ": sphere element ", id, " has properties ",
                    property_id,
                    ", which neither the spheres' model part nor an inlet of this "
                    "deck has (another deck?)");
    if (!spheres.HasProperties(property_id)) spheres.AddProperties(properties);
    if (!db.HasNode(node->second)) spheres.CreateNewNode(node->second, 0.0, 0.0, 0.0);
    const IdType node_ids[1] = {node->second};
    spheres.CreateNewElement(type, id, node_ids, properties);
  });
}

// Friend of nonsmooth::MoreauJeanStrategy: its members that live across
// steps (it searches every step, so no list carries over but the impulses
// that warm-start the next step's solve).
struct MoreauJeanCheckpointAccess {
  template <class Strategy, class Archive>
  static void Visit(Strategy& s, Archive& a) {
    VisitParticleRows(s.particles_, a);
    VisitFaces(s.faces_, a);
    VisitClusters(s.clusters_, a);
    a.Column("WarmStart/keys", s.previous_keys_);
    a.Column("WarmStart/impulses", s.previous_impulses_);
    VisitReports("Steps/history", s.history_, a);
    std::vector<nonsmooth::MoreauJeanStepReport> last{s.last_};
    VisitReports("Steps/last", last, a);
    if constexpr (!std::is_const_v<Strategy>) {
      TESSERA_CHECK(last.size() == 1, "checkpoint: Steps/last holds ", last.size(), " reports");
      s.last_ = last[0];
    }
    a.Value("Energy/dissipated_normal", s.dissipated_normal_);
    a.Value("Energy/dissipated_tangential", s.dissipated_tangential_);
    a.Value("TimeStep", s.settings_.delta_time);
  }

  // The step reports field by field: a report's padding bytes are no state,
  // and saved whole they would differ between two runs of equal state.
  template <class Reports, class Archive>
  static void VisitReports(const std::string& name, Reports& reports, Archive& a) {
    std::vector<std::uint64_t> contacts, interface_contacts;
    std::vector<std::int32_t> iterations, exchanges;
    std::vector<std::uint8_t> converged;
    std::vector<double> change, law_residual, max_penetration, max_impulse;
    for (const auto& r : reports) {
      contacts.push_back(r.contacts);
      iterations.push_back(r.iterations);
      converged.push_back(r.converged);
      change.push_back(r.change);
      law_residual.push_back(r.law_residual);
      max_penetration.push_back(r.max_penetration);
      max_impulse.push_back(r.max_impulse);
      interface_contacts.push_back(r.interface_contacts);
      exchanges.push_back(r.exchanges);
    }
    a.Column(name + "/contacts", contacts);
    a.Column(name + "/iterations", iterations);
    a.Column(name + "/converged", converged);
    a.Column(name + "/change", change);
    a.Column(name + "/law_residual", law_residual);
    a.Column(name + "/max_penetration", max_penetration);
    a.Column(name + "/max_impulse", max_impulse);
    a.Column(name + "/interface_contacts", interface_contacts);
    a.Column(name + "/exchanges", exchanges);
    if constexpr (!std::is_const_v<Reports>) {
      const std::size_t n = contacts.size();
      for (const std::size_t size :
           {iterations.size(), converged.size(), change.size(), law_residual.size(),
            max_penetration.size(), max_impulse.size(), interface_contacts.size(),
            exchanges.size()})
        TESSERA_CHECK(size == n, "checkpoint: the fields of ", name, " disagree in length");
      reports.assign(n, {});
      for (std::size_t k = 0; k < n; ++k)
        reports[k] = {contacts[k],    iterations[k],         converged[k] != 0,
                      change[k],      law_residual[k],       max_penetration[k],
                      max_impulse[k], interface_contacts[k], exchanges[k]};
    }
  }

  static void Save(const nonsmooth::MoreauJeanStrategy& s, CheckpointWriter& writer,
                   const std::string& group) {
    TESSERA_CHECK(s.initialized_, "checkpoint ", writer.Path(),
                  ": the Moreau-Jean strategy is saved only after Initialize()");
    Saver saver(writer, group);
    Visit(s, saver);
  }

  static void Load(nonsmooth::MoreauJeanStrategy& s, const CheckpointReader& reader,
                   const std::string& group) {
    TESSERA_CHECK(s.initialized_, "checkpoint ", reader.Path(),
                  ": the Moreau-Jean strategy must be initialised before its state is loaded");
    const std::size_t rows = s.particles_.size(), faces = s.faces_.vertex_count.size();
    Loader loader(reader, group);
    Visit(s, loader);
    // Its spheres and walls are the deck's (no inlets, no deletions): the
    // saved rows and faces are as many as this run's.
    TESSERA_CHECK(s.particles_.size() == rows && s.faces_.vertex_count.size() == faces,
                  "checkpoint ", reader.Path(), ": ", group, " holds ", s.particles_.size(),
                  " spheres and ", s.faces_.vertex_count.size(), " wall faces where this run has ",
                  rows, " and ", faces, " (another deck?)");
    s.SetDeltaTime(s.settings_.delta_time);
  }
};

void SaveMoreauJeanState(const nonsmooth::MoreauJeanStrategy& strategy, CheckpointWriter& writer,
                         const std::string& group) {
  MoreauJeanCheckpointAccess::Save(strategy, writer, group);
}

void LoadMoreauJeanState(nonsmooth::MoreauJeanStrategy& strategy, const CheckpointReader& reader,
                         const std::string& group) {
  MoreauJeanCheckpointAccess::Load(strategy, reader, group);
}

void SaveStrategyState(const ExplicitSolverStrategy& strategy, CheckpointWriter& writer,
                       const std::string& group) {
  StrategyCheckpointAccess::Save(strategy, writer, group);
}

void PrepareSpheresForCheckpoint(ExplicitSolverStrategy& strategy, const ParticleInlets* inlets,
                                 const CheckpointReader& reader, const std::string& group,
                                 const std::string& spheres_group) {
  StrategyCheckpointAccess::Prepare(strategy, inlets, reader, group, spheres_group);
}

void LoadStrategyState(ExplicitSolverStrategy& strategy, const CheckpointReader& reader,
                       const std::string& group) {
  StrategyCheckpointAccess::Load(strategy, reader, group);
}

void SaveInletState(const ParticleInlets& inlets, CheckpointWriter& writer,
                    const std::string& group) {
  Saver saver(writer, group);
  InletsCheckpointAccess::Visit(inlets, saver);
}

void LoadInletState(ParticleInlets& inlets, const CheckpointReader& reader,
                    const std::string& group) {
  Loader loader(reader, group);
  InletsCheckpointAccess::Visit(inlets, loader);
}

}  // namespace tessera::dem
