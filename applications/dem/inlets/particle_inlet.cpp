// Kratos' DEM inlets (see particle_inlet.h).
#include "applications/dem/inlets/particle_inlet.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <unordered_map>

#include "applications/dem/dem_variables.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/core/variable_registry.h"
#include "kernel/model/model_part.h"

namespace tessera::dem {
namespace {

// `next`, then past it, skipping the ids of `taken` (ascending).
IdType NextFreeId(IdType& next, const std::vector<IdType>& taken) {
  while (std::binary_search(taken.begin(), taken.end(), next)) ++next;
  return next++;
}

// The largest deviation angle Kratos accepts (degrees): beyond it the
// perpendicular component, |v| tan(angle), grows without bound.
constexpr double kMaximumDeviationDegrees = 89.5;

// Keys an inlet's SubModelPartData may hold. The motion keys are accepted so
// that a moving inlet gets "not supported yet" rather than "unknown key".
const std::vector<const VariableBase*>& InletKeys() {
  static const std::vector<const VariableBase*> keys = {&PROPERTIES_ID,
                                                        &IDENTIFIER,
                                                        &INJECTOR_ELEMENT_TYPE,
                                                        &ELEMENT_TYPE,
                                                        &CONTAINS_CLUSTERS,
                                                        &CLUSTER_FILE_NAME,
                                                        &VELOCITY,
                                                        &MAX_RAND_DEVIATION_ANGLE,
                                                        &INLET_NUMBER_OF_PARTICLES,
                                                        &IMPOSED_MASS_FLOW_OPTION,
                                                        &MASS_FLOW,
                                                        &INLET_START_TIME,
                                                        &INLET_STOP_TIME,
                                                        &RADIUS,
                                                        &PROBABILITY_DISTRIBUTION,
                                                        &STANDARD_DEVIATION,
                                                        &MINIMUM_RADIUS,
                                                        &MAXIMUM_RADIUS,
                                                        &RANDOM_ORIENTATION,
                                                        &ORIENTATION,
                                                        &DENSE_INLET,
                                                        &RIGID_BODY_MOTION,
                                                        &LINEAR_VELOCITY,
                                                        &ANGULAR_VELOCITY,
                                                        &ANGULAR_VELOCITY_START_TIME,
                                                        &ANGULAR_VELOCITY_STOP_TIME,
                                                        &ANGULAR_VELOCITY_PERIOD,
                                                        &VELOCITY_START_TIME,
                                                        &VELOCITY_STOP_TIME,
                                                        &VELOCITY_PERIOD,
                                                        &ROTATION_CENTER};
  return keys;
}

std::string KeyList() {
  std::string list;
  for (const VariableBase* key : InletKeys()) list += (list.empty() ? "" : ", ") + key->Name();
  return list;
}

// A cell grid over the spheres an injection may touch: the particles near the
// inlets and those injected in this call. Cells are at least as large as the
// widest possible contact distance, so a query looks at 27 cells.
class OverlapGrid {
 public:
  explicit OverlapGrid(double cell) : cell_(cell) {}
  void Add(const Array3& x, double r) {
    const std::size_t k = centres_.size();
    centres_.push_back(x);
    radii_.push_back(r);
    cells_[Key(Cell(x[0]), Cell(x[1]), Cell(x[2]))].push_back(static_cast<std::uint32_t>(k));
  }
  bool Overlaps(const Array3& x, double r) const {
    const std::int64_t cx = Cell(x[0]), cy = Cell(x[1]), cz = Cell(x[2]);
    for (std::int64_t i = cx - 1; i <= cx + 1; ++i)
      for (std::int64_t j = cy - 1; j <= cy + 1; ++j)
        for (std::int64_t k = cz - 1; k <= cz + 1; ++k) {
          const auto it = cells_.find(Key(i, j, k));
          if (it == cells_.end()) continue;
          for (std::uint32_t s : it->second) {
            const Array3 d = centres_[s] - x;
            const double reach = radii_[s] + r;
            if (Dot(d, d) < reach * reach) return true;
          }
        }
    return false;
  }

 private:
  std::int64_t Cell(double x) const { return static_cast<std::int64_t>(std::floor(x / cell_)); }
  static std::uint64_t Key(std::int64_t i, std::int64_t j, std::int64_t k) {
    // 21 bits per axis (cells wrap beyond ±2^20: a wrapped cell only adds candidates).
    const auto m = [](std::int64_t v) { return static_cast<std::uint64_t>(v) & 0x1FFFFFull; };
    return (m(i) << 42) | (m(j) << 21) | m(k);
  }
  double cell_;
  std::vector<Array3> centres_;
  std::vector<double> radii_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> cells_;
};

double SphereMass(double density, double r) {
  return density * 4.0 / 3.0 * std::numbers::pi * r * r * r;
}

// An inlet's SubModelPartData checks (an error naming the part `where`).
void RequireKey(const ModelPart& part, const std::string& where, const VariableBase& key,
                const char* what) {
  if (!part.Has(key))
    TESSERA_ERROR(where, ": SubModelPartData has no ", key.Name(), " (", what, ")");
}

double PositiveValue(const ModelPart& part, const std::string& where, const Variable<double>& key) {
  const double v = part.GetValue(key);
  if (!(v > 0.0) || !std::isfinite(v))
    TESSERA_ERROR(where, ": ", key.Name(), " must be > 0, got ", v);
  return v;
}

double NonNegativeValue(const ModelPart& part, const std::string& where,
                        const Variable<double>& key) {
  const double v = part.GetValue(key);
  if (!(v >= 0.0) || !std::isfinite(v))
    TESSERA_ERROR(where, ": ", key.Name(), " must be >= 0, got ", v);
  return v;
}

}  // namespace

RadiusDistribution ReadInletRadius(const ModelPart& part,
                                   const std::map<std::string, InletRadiusTable>& tables) {
  const std::string where = part.FullName();
  auto require = [&](const VariableBase& key, const char* what) {
    RequireKey(part, where, key, what);
  };
  auto positive = [&](const Variable<double>& key) { return PositiveValue(part, where, key); };
  auto non_negative = [&](const Variable<double>& key) {
    return NonNegativeValue(part, where, key);
  };
  const std::string law =
      part.Has(PROBABILITY_DISTRIBUTION) ? part.GetValue(PROBABILITY_DISTRIBUTION) : "normal";
  RadiusDistribution radius;
  if (law == "normal" || law == "lognormal") {
    radius.kind =
        law == "normal" ? RadiusDistribution::Kind::kNormal : RadiusDistribution::Kind::kLognormal;
    require(RADIUS, "the mean radius");
    radius.mean = positive(RADIUS);
    radius.deviation = non_negative(STANDARD_DEVIATION);
    // Kratos' default bounds: half and one and a half times the mean.
    radius.minimum = part.Has(MINIMUM_RADIUS) ? positive(MINIMUM_RADIUS) : 0.5 * radius.mean;
    radius.maximum = part.Has(MAXIMUM_RADIUS) ? positive(MAXIMUM_RADIUS) : 1.5 * radius.mean;
    if (!(radius.minimum <= radius.mean && radius.mean <= radius.maximum))
      TESSERA_ERROR(where, ": MINIMUM_RADIUS (", radius.minimum, ") <= RADIUS (", radius.mean,
                    ") <= MAXIMUM_RADIUS (", radius.maximum, ") does not hold");
  } else if (law == "discrete" || law == "piecewise_linear") {
    radius.kind = law == "discrete" ? RadiusDistribution::Kind::kDiscrete
                                    : RadiusDistribution::Kind::kPiecewiseLinear;
    const auto it = tables.find(part.Name());
    if (it == tables.end())
      TESSERA_ERROR(where, ": PROBABILITY_DISTRIBUTION ", law,
                    " needs "
                    "dem_inlets_settings.",
                    part.Name(),
                    ".random_variable_settings in the "
                    "project parameters (",
                    law == "discrete" ? "possible_values, relative_frequencies"
                                      : "pdf_breakpoints, pdf_values",
                    ")");
    radius.values = it->second.values;
    radius.weights = it->second.weights;
    radius.Prepare(where + " (dem_inlets_settings." + part.Name() + ")");
  } else {
    TESSERA_ERROR(where, ": PROBABILITY_DISTRIBUTION '", law,
                  "' is unknown; expected normal, lognormal, discrete or piecewise_linear");
  }
  return radius;
}

double LargestInletRadius(ModelPart& inlets,
                          const std::map<std::string, InletRadiusTable>& tables) {
  double largest = 0.0;
  for (const ModelPart* part : inlets.SubModelParts())
    largest = std::max(largest, ReadInletRadius(*part, tables).Largest());
  return largest;
}

ParticleInlets::ParticleInlets(ModelPart& inlets, ExplicitSolverStrategy& strategy,
                               std::uint64_t seed,
                               const std::map<std::string, InletRadiusTable>& tables)
    : inlets_part_(inlets), strategy_(strategy) {
  std::vector<ModelPart*> parts = inlets.SubModelParts();
  std::sort(parts.begin(), parts.end(),
            [](const ModelPart* a, const ModelPart* b) { return a->Name() < b->Name(); });
  for (const auto& [name, table] : tables)
    if (!inlets.HasSubModelPart(name))
      TESSERA_ERROR(
          "dem_inlets_settings: '", name, "' is no inlet (sub model parts of ", inlets.Name(), ": ",
          [&] {
            std::string list;
            for (const ModelPart* p : parts) list += (list.empty() ? "" : ", ") + p->Name();
            return list.empty() ? std::string("none") : list;
          }(),
          ")");
  for (std::size_t k = 0; k < parts.size(); ++k) {
    inlets_.push_back(ReadInlet(*parts[k], seed, k, tables));
    strategy_.RegisterParticleMaterial(inlets_.back().properties.get(),
                                       inlets_.back().radius.Smallest());
  }
  // Ids of the new nodes and elements: after every id of the spheres and of the
  // inlet mesh (Kratos numbers injected particles after both).
  ModelPart& spheres = strategy_.SpheresModelPart();
  for (ModelPart* part : {&spheres, &inlets.GetRootModelPart()}) {
    for (Node node : part->Nodes()) next_node_id_ = std::max(next_node_id_, node.Id() + 1);
    for (const Element& e : part->Elements())
      next_element_id_ = std::max(next_element_id_, e.Id() + 1);
  }
}

void ParticleInlets::NumberAfter(IdType node_id, IdType element_id) {
  next_node_id_ = std::max(next_node_id_, node_id + 1);
  next_element_id_ = std::max(next_element_id_, element_id + 1);
}

void ParticleInlets::SkipIdsOfClusterMembers(IdType first_node, IdType first_element,
                                             std::int64_t count) {
  taken_node_ids_.clear(), taken_element_ids_.clear();
  for (std::int64_t k = 0; k < count; ++k) {
    if (first_node + k >= next_node_id_) taken_node_ids_.push_back(first_node + k);
    if (first_element + k >= next_element_id_) taken_element_ids_.push_back(first_element + k);
  }
}

void ParticleInlets::SkipIdsOfInitialSpheres() {
  ModelPart& spheres = strategy_.SpheresModelPart();
  taken_node_ids_.clear(), taken_element_ids_.clear();
  for (Node node : spheres.Nodes())
    if (node.Id() >= next_node_id_) taken_node_ids_.push_back(node.Id());
  for (const Element& e : spheres.Elements())
    if (e.Id() >= next_element_id_) taken_element_ids_.push_back(e.Id());
  std::sort(taken_node_ids_.begin(), taken_node_ids_.end());
  std::sort(taken_element_ids_.begin(), taken_element_ids_.end());
}

ParticleInlets::Inlet ParticleInlets::ReadInlet(
    ModelPart& part, std::uint64_t seed, std::size_t number,
    const std::map<std::string, InletRadiusTable>& tables) const {
  Inlet inlet;
  inlet.name = part.FullName();
  const std::string& where = inlet.name;
  // Unknown keys first: a misspelt key must not pass as a missing one.
  for (const auto& [id, value] : part.Data().Entries()) {
    const VariableBase& variable = VariableRegistry::Instance().ById(id);
    const auto& keys = InletKeys();
    if (std::find(keys.begin(), keys.end(), &variable) == keys.end())
      TESSERA_ERROR(where, ": SubModelPartData key ", variable.Name(),
                    " is not an inlet key (inlet keys: ", KeyList(), ")");
  }
  auto require = [&](const VariableBase& key, const char* what) {
    RequireKey(part, where, key, what);
  };
  auto non_negative = [&](const Variable<double>& key) {
    return NonNegativeValue(part, where, key);
  };

  if (part.GetValue(CONTAINS_CLUSTERS))
    TESSERA_ERROR(where, ": CONTAINS_CLUSTERS 1: inlets of clusters are not supported yet");
  if (part.GetValue(RIGID_BODY_MOTION) || Norm(part.GetValue(LINEAR_VELOCITY)) != 0.0 ||
      Norm(part.GetValue(ANGULAR_VELOCITY)) != 0.0)
    TESSERA_ERROR(where,
                  ": moving inlets (RIGID_BODY_MOTION, LINEAR_VELOCITY, ANGULAR_VELOCITY) "
                  "are not supported yet");

  // Material.
  require(PROPERTIES_ID,
          "the Properties of the injected particles; MaterialsDEM.json sets it "
          "through material_assignation_table");
  const int properties_id = part.GetValue(PROPERTIES_ID);
  ModelPart& root = part.GetRootModelPart();
  if (properties_id < 0 || !(part.HasProperties(static_cast<IdType>(properties_id)) ||
                             root.HasProperties(static_cast<IdType>(properties_id))))
    TESSERA_ERROR(where, ": PROPERTIES_ID ", properties_id, " names no Properties of ",
                  root.Name());
  inlet.properties = part.HasProperties(static_cast<IdType>(properties_id))
                         ? part.GetProperties(static_cast<IdType>(properties_id))
                         : root.GetProperties(static_cast<IdType>(properties_id));
  inlet.density = inlet.properties->GetValue(PARTICLE_DENSITY);
  if (!(inlet.density > 0.0))
    TESSERA_ERROR(where, ": Properties ", properties_id,
                  " (PROPERTIES_ID) needs PARTICLE_DENSITY > 0, "
                  "got ",
                  inlet.density);
  inlet.element_type = part.Has(ELEMENT_TYPE) ? part.GetValue(ELEMENT_TYPE) : "SphericParticle3D";
  static const char* const kSphereNames[] = {"SphericParticle3D", "SphericContinuumParticle3D",
                                             "SphericPartDEMElement3D",
                                             "SphericContPartDEMElement3D"};
  if (std::find(std::begin(kSphereNames), std::end(kSphereNames), inlet.element_type) ==
      std::end(kSphereNames))
    TESSERA_ERROR(where, ": ELEMENT_TYPE ", inlet.element_type,
                  " cannot be injected; expected SphericParticle3D, SphericContinuumParticle3D, "
                  "SphericPartDEMElement3D or SphericContPartDEMElement3D");

  // Velocity and deviation.
  require(VELOCITY, "the injection velocity");
  inlet.velocity = part.GetValue(VELOCITY);
  if (!(Norm(inlet.velocity) > 0.0) || !std::isfinite(Norm(inlet.velocity)))
    TESSERA_ERROR(where,
                  ": VELOCITY must be a finite non-zero vector (it gives the injection "
                  "direction), got (",
                  inlet.velocity[0], ", ", inlet.velocity[1], ", ", inlet.velocity[2], ")");
  const double degrees = part.GetValue(MAX_RAND_DEVIATION_ANGLE);
  if (!(degrees >= 0.0 && degrees <= kMaximumDeviationDegrees))
    TESSERA_ERROR(where, ": MAX_RAND_DEVIATION_ANGLE must be in [0, ", kMaximumDeviationDegrees,
                  "] degrees, got ", degrees);
  inlet.deviation_angle = degrees * std::numbers::pi / 180.0;

  // Rate and times.
  inlet.imposed_mass_flow = part.GetValue(IMPOSED_MASS_FLOW_OPTION);
  if (inlet.imposed_mass_flow) {
    require(MASS_FLOW, "kg/s, with IMPOSED_MASS_FLOW_OPTION 1");
    inlet.mass_flow = non_negative(MASS_FLOW);
    if (part.Has(INLET_NUMBER_OF_PARTICLES)) non_negative(INLET_NUMBER_OF_PARTICLES);
  } else {
    require(INLET_NUMBER_OF_PARTICLES, "particles per second");
    inlet.particles_per_second = non_negative(INLET_NUMBER_OF_PARTICLES);
    if (part.Has(MASS_FLOW)) non_negative(MASS_FLOW);
  }
  require(INLET_START_TIME, "s");
  require(INLET_STOP_TIME, "s");
  inlet.start_time = part.GetValue(INLET_START_TIME);
  inlet.stop_time = part.GetValue(INLET_STOP_TIME);
  if (!std::isfinite(inlet.start_time) || !(inlet.stop_time >= inlet.start_time))
    TESSERA_ERROR(where, ": INLET_STOP_TIME (", inlet.stop_time,
                  ") must not be before INLET_START_TIME (", inlet.start_time, ")");

  inlet.radius = ReadInletRadius(part, tables);

  // Injection points and random streams.
  for (Node node : part.Nodes()) inlet.points.push_back(node.Coordinates());
  inlet.placement = InletRandom(DeriveSeed(seed, 2 * number + 1));
  const auto table = tables.find(part.Name());
  const bool own_seed = table != tables.end() && table->second.use_seed;
  inlet.sizes = InletRandom(own_seed ? static_cast<std::uint64_t>(table->second.seed)
                                     : DeriveSeed(seed, 2 * number + 2));
  return inlet;
}

double ParticleInlets::MaximumSpeed() const {
  double speed = 0.0;
  for (const Inlet& inlet : inlets_)
    speed = std::max(speed, Norm(inlet.velocity) / std::cos(inlet.deviation_angle));
  return speed;
}

Array3 ParticleInlets::DeviatedVelocity(Inlet& inlet) {
  const Array3 v = inlet.velocity;
  if (inlet.deviation_angle == 0.0) return v;
  const double speed = Norm(v);
  const Array3 axis = v / speed;
  // Two unit vectors perpendicular to the axis: the first from the axis' smallest component.
  int smallest = 0;
  for (int k = 1; k < 3; ++k)
    if (std::abs(axis[k]) < std::abs(axis[smallest])) smallest = k;
  Array3 helper{};
  helper[smallest] = 1.0;
  Array3 e1 = Cross(axis, helper);
  e1 = e1 / Norm(e1);
  const Array3 e2 = Cross(axis, e1);
  // Uniform in the disc of radius |v| tan(angle) (rejection from its square).
  const double reach = speed * std::tan(inlet.deviation_angle);
  double a, b;
  do {
    a = 2.0 * inlet.placement.Uniform() - 1.0;
    b = 2.0 * inlet.placement.Uniform() - 1.0;
  } while (a * a + b * b > 1.0);
  return v + (reach * a) * e1 + (reach * b) * e2;
}

void ParticleInlets::Inject(double time) {
  // Round-off of a time summed from steps must not move an injection to the next step.
  const double slack = 1e-12 * std::max(1.0, std::abs(time));
  std::vector<Inlet*> due;
  for (Inlet& inlet : inlets_)
    if (!inlet.points.empty() && time >= inlet.start_time - slack &&
        time <= inlet.stop_time + slack)
      due.push_back(&inlet);
  if (due.empty()) return;

  // The particles near the due inlets' points, in a grid for the overlap test.
  double largest_new = 0.0;
  Array3 low{1e300, 1e300, 1e300}, high{-1e300, -1e300, -1e300};
  for (const Inlet* inlet : due) {
    largest_new = std::max(largest_new, inlet->radius.Largest());
    for (const Array3& x : inlet->points)
      for (int k = 0; k < 3; ++k) {
        low[k] = std::min(low[k], x[k]);
        high[k] = std::max(high[k], x[k]);
      }
  }
  const auto near_box = [&](const Array3& x, double reach) {
    bool near = true;
    for (int k = 0; k < 3; ++k) near = near && x[k] >= low[k] - reach && x[k] <= high[k] + reach;
    return near;
  };
  std::unique_ptr<OverlapGrid> grid;
  if (hooks_.gather) {
    // A distributed run: the spheres of every rank (the overlap test's
    // answer depends only on the set, not on its order or the cell size).
    std::vector<Array3> centres;
    std::vector<double> radii;
    const double reach = hooks_.gather(low, high, largest_new, centres, radii);
    grid = std::make_unique<OverlapGrid>(reach);
    for (std::size_t i = 0; i < centres.size(); ++i)
      if (near_box(centres[i], reach)) grid->Add(centres[i], radii[i]);
  } else {
    const ParticleStorage& particles = strategy_.Particles();
    double largest_old = 0.0;
    for (double r : particles.radius) largest_old = std::max(largest_old, r);
    const double reach = largest_new + std::max(largest_old, largest_new);
    grid = std::make_unique<OverlapGrid>(reach);
    for (std::size_t i = 0; i < particles.size(); ++i)
      if (near_box(particles.position[i], reach))
        grid->Add(particles.position[i], particles.radius[i]);
  }

  std::vector<NewParticle> fresh;
  for (Inlet* inlet_pointer : due) {
    Inlet& inlet = *inlet_pointer;
    const double elapsed = std::max(0.0, std::min(time, inlet.stop_time) - inlet.start_time);
    const auto target_count =
        static_cast<std::size_t>(std::floor(inlet.particles_per_second * elapsed + 1e-6));
    const double target_mass = inlet.mass_flow * elapsed;
    auto wanted = [&] {
      return inlet.imposed_mass_flow ? inlet.injected_mass < target_mass
                                     : inlet.injected_count < target_count;
    };
    if (!wanted()) continue;
    // The points in a random order (Fisher–Yates).
    const std::size_t n = inlet.points.size();
    inlet.order.resize(n);
    for (std::size_t k = 0; k < n; ++k) inlet.order[k] = static_cast<std::uint32_t>(k);
    for (std::size_t k = n; k > 1; --k)
      std::swap(inlet.order[k - 1], inlet.order[inlet.placement.Below(k)]);
    for (std::size_t k = 0; k < n && wanted(); ++k) {
      if (inlet.pending_radius == 0.0) inlet.pending_radius = inlet.radius.Sample(inlet.sizes);
      const double r = inlet.pending_radius;
      const Array3& x = inlet.points[inlet.order[k]];
      if (grid->Overlaps(x, r)) continue;
      grid->Add(x, r);
      NewParticle particle;
      particle.node_id = NextFreeId(next_node_id_, taken_node_ids_);
      particle.element_id = NextFreeId(next_element_id_, taken_element_ids_);
      particle.position = x;
      particle.velocity = DeviatedVelocity(inlet);
      particle.radius = r;
      particle.properties = inlet.properties;
      particle.element_type = &inlet.element_type;
      fresh.push_back(particle);
      inlet.pending_radius = 0.0;
      ++inlet.injected_count;
      inlet.injected_mass += SphereMass(inlet.density, r);
    }
  }
  if (fresh.empty()) return;
  if (hooks_.insert)
    hooks_.insert(fresh);
  else
    strategy_.InsertParticles(fresh);
}

double ParticleInlets::LargestRadius() const {
  double largest = 0.0;
  for (const Inlet& inlet : inlets_) largest = std::max(largest, inlet.radius.Largest());
  return largest;
}

std::vector<Properties::Pointer> ParticleInlets::Materials() const {
  std::vector<Properties::Pointer> materials;
  for (const Inlet& inlet : inlets_) materials.push_back(inlet.properties);
  return materials;
}

}  // namespace tessera::dem
