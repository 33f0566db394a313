// Filling the particle rows from a spheres model part and writing them back.
#include "applications/dem/particles/particle_storage.h"

#include <algorithm>
#include <array>
#include <numbers>
#include <type_traits>

#include "applications/dem/dem_variables.h"
#include "applications/dem/elements/spheric_particle.h"
#include "applications/dem/utilities/parallel_rows.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"
#include "kernel/model/row_gather.h"

namespace tessera::dem {
namespace {

template <class T>
void CompactVector(std::vector<T>& v, const std::vector<std::uint8_t>& keep) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (keep[i]) v[out++] = v[i];
  v.resize(out);
}

// The historical column of `variable`, or null when the model part does not declare it.
template <class T>
T* HistoricalData(NodalDatabase& db, const Variable<T>& variable) {
  if (!db.HasHistoricalVariable(variable)) return nullptr;
  return db.HistoricalColumn(variable).Data();
}

// Fixity of `variable` per node position (null when no node has that dof).
const std::uint8_t* FixedData(const NodalDatabase& db, const VariableBase& variable) {
  const DofColumn* column = db.FindDofColumn(variable);
  return column ? column->fixed.data() : nullptr;
}

// The six velocity components, in the order of the FixedBits.
const VariableBase* const kVelocityDofs[6] = {&VELOCITY_X,         &VELOCITY_Y,
                                              &VELOCITY_Z,         &ANGULAR_VELOCITY_X,
                                              &ANGULAR_VELOCITY_Y, &ANGULAR_VELOCITY_Z};

// The fixity columns of the six velocity components (null where no node has the dof).
struct FixityColumns {
  const std::uint8_t* fixed[6] = {};

  explicit FixityColumns(const NodalDatabase& db) {
    for (int k = 0; k < 6; ++k) fixed[k] = FixedData(db, *kVelocityDofs[k]);
  }
  // bits[i] = the fixed flags of node[i] (bit k: kVelocityDofs[k]), over
  // [begin, end); column by column, so that each loop is a plain gather (or,
  // for contiguous nodes, a copy the compiler vectorises).
  void Bits(const IndexType* node, bool contiguous, std::uint8_t* bits, std::size_t begin,
            std::size_t end) const {
    std::fill(bits + begin, bits + end, std::uint8_t{0});
    for (int k = 0; k < 6; ++k) {
      if (!fixed[k]) continue;
      const auto bit = static_cast<std::uint8_t>(1u << k);
      if (contiguous) {
        const std::uint8_t* column = fixed[k] + node[0];
        for (std::size_t i = begin; i < end; ++i) bits[i] |= column[i] != 0 ? bit : 0;
      } else {
        for (std::size_t i = begin; i < end; ++i) bits[i] |= fixed[k][node[i]] != 0 ? bit : 0;
      }
    }
  }
};

}  // namespace

void ParticleStorage::Resize(std::size_t n) {
  OwnColumns();
  ForEachColumn(*this, [n](auto& column) { column.assign(n, {}); });
}

void ParticleStorage::AppendRow() {
  ForEachColumn(*this, [](auto& column) { column.emplace_back(); });
}

void ParticleStorage::Compact(const std::vector<std::uint8_t>& keep) {
  ForEachColumn(*this, [&keep](auto& column) { CompactVector(column, keep); });
}

void ParticleStorage::Permute(const std::vector<std::uint32_t>& order) {
  if (order.size() > size())
    TESSERA_ERROR("ParticleStorage::Permute: ", order.size(), " rows in the order, ", size(),
                  " in the storage");
  // Runs of rows moved by block copies where the order keeps them (row_gather.h).
  const RowGather gather(order);
  ForEachColumn(*this, [&gather](auto& column) { gather.ApplyAnew(column); });
}

std::size_t ParticleStorage::HeldBytes() const {
  std::size_t bytes = 0;
  ForEachColumn(*this,
                [&bytes](const auto& column) { bytes += column.capacity() * sizeof(column[0]); });
  return bytes;
}

bool ParticleStorage::ShareColumnsWithNodes(NodalDatabase& db) {
  const std::size_t n = size();
  bool rows_are_nodes = n > 0 && db.Size() == n;
  // Nodes are only reordered or removed with a new layout number.
  const bool checked =
      SharesColumnsWithNodes() && shared_database_ == &db && shared_layout_ == db.Layout();
  for (std::size_t i = 0; i < n && rows_are_nodes && !checked; ++i) rows_are_nodes = node[i] == i;
  if (!rows_are_nodes) {
    OwnColumns();
    return false;
  }
  position.Share(db.AllCoordinates(), n);
  auto share = [&db, n](RowColumn<Array3>& column, const Variable<Array3>& variable) {
    if (db.HasHistoricalVariable(variable))
      column.Share(db.HistoricalColumn(variable).Values(), n);
    else
      column.Own(n);
  };
  share(velocity, VELOCITY);
  share(angular_velocity, ANGULAR_VELOCITY);
  share(displacement, DISPLACEMENT);
  share(delta_displacement, DELTA_DISPLACEMENT);
  share(rotation_angle, PARTICLE_ROTATION_ANGLE);
  share(force, TOTAL_FORCES);
  share(torque, PARTICLE_MOMENT);
  share(contact_force, CONTACT_FORCES);
  // The elastic forces: shared where declared (the owned sums go there), else
  // none (not summed).
  if (db.HasHistoricalVariable(ELASTIC_FORCES)) {
    share(elastic_force, ELASTIC_FORCES);
  } else {
    elastic_force.Own(0);
    std::vector<Array3>().swap(*elastic_force.Owned());
  }
  // The applied loads are read from the nodes, never written: an owned
  // column's values are dropped, not copied there (they are the nodes' of
  // the last read at best). Undeclared, the column stays empty.
  auto share_load = [&db, n](RowColumn<Array3>& column, const Variable<Array3>& variable) {
    if (auto* owned = column.Owned()) std::vector<Array3>().swap(*owned);
    if (db.HasHistoricalVariable(variable))
      column.Share(db.HistoricalColumn(variable).Values(), n);
    else
      column.Own(0);
  };
  share_load(external_force, EXTERNAL_APPLIED_FORCE);
  share_load(external_moment, EXTERNAL_APPLIED_MOMENT);
  shared_database_ = &db;
  shared_layout_ = db.Layout();
  return true;
}

void ParticleStorage::OwnColumns() {
  const std::size_t n = size();
  ForEachRowColumn(*this, [n](RowColumn<Array3>& column) { column.Own(n); });
  external_force.Own(n);
  external_moment.Own(n);
}

int MaterialIndex::IndexOf(const Properties* properties) {
  const int found = Find(properties);
  if (found >= 0) return found;
  list_.push_back(properties);
  return static_cast<int>(list_.size()) - 1;
}

int MaterialIndex::Find(const Properties* properties) const {
  const auto it = std::find(list_.begin(), list_.end(), properties);
  return it == list_.end() ? -1 : static_cast<int>(it - list_.begin());
}

void DeclareParticleVariables(ModelPart& spheres, bool elastic_forces) {
  ModelPart& root = spheres.GetRootModelPart();
  for (const VariableBase* variable : std::initializer_list<const VariableBase*>{
           &RADIUS, &VELOCITY, &ANGULAR_VELOCITY, &DISPLACEMENT, &DELTA_DISPLACEMENT, &TOTAL_FORCES,
           &CONTACT_FORCES, &PARTICLE_MOMENT, &PARTICLE_ROTATION_ANGLE})
    if (!root.HasNodalSolutionStepVariable(*variable)) root.AddNodalSolutionStepVariable(*variable);
  if (elastic_forces && !root.HasNodalSolutionStepVariable(ELASTIC_FORCES))
    root.AddNodalSolutionStepVariable(ELASTIC_FORCES);
}

namespace {

// The particle behind `element`, checked: a sphere in a 3D run, a disc
// (CylinderParticle2D) in a 2D one; one node, radius > 0, a complete particle
// material.
const SphericParticle& CheckedParticle(const ModelPart& spheres, const Element& element,
                                       const ProcessInfo& info, int dimension) {
  const auto* sphere = dynamic_cast<const SphericParticle*>(&element);
  const bool disc = dynamic_cast<const CylinderParticle*>(&element) != nullptr;
  const bool planar = dimension == 2;
  if (sphere == nullptr)
    TESSERA_ERROR(element.Info(), " in ", spheres.FullName(),
                  " is not a 3D spherical particle nor a 2D disc; the DEM strategy runs "
                  "SphericParticle3D, SphericContinuumParticle3D, their GiD names and "
                  "(\"Dimension\": 2) CylinderParticle2D (Cluster3D elements belong in the cluster "
                  "model part, ClusterPart)");
  if (disc && !planar)
    TESSERA_ERROR(element.Info(), " in ", spheres.FullName(),
                  " is a 2D disc, but the run is 3D; set \"Dimension\": 2 in "
                  "ProjectParametersDEM.json (with 2D contact laws) or use SphericParticle3D");
  if (!disc && planar)
    TESSERA_ERROR(element.Info(), " in ", spheres.FullName(),
                  " is a 3D sphere, but the run is 2D (\"Dimension\": 2); a 2D run takes "
                  "CylinderParticle2D elements only");
  sphere->Check(info);
  return *sphere;
}

// Radius, mass, inertia, node and id of row `row` from its particle. A disc is
// a cylinder of unit thickness (forces and masses per metre): m = ρ π R²,
// I = m R² / 2. A sphere: m = ρ 4/3 π R³, I = 2/5 m R².
void SetConstants(const SphericParticle& sphere, int material, std::size_t row, int dimension,
                  ParticleStorage& particles) {
  const bool planar = dimension == 2;
  const double r = sphere.Radius();
  const double density = sphere.GetProperties().GetValue(PARTICLE_DENSITY);
  const double mass = planar ? density * std::numbers::pi * r * r
                             : density * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  particles.radius[row] = r;
  particles.mass[row] = mass;
  particles.inertia[row] = (planar ? 0.5 : 0.4) * mass * r * r;
  particles.material[row] = material;
  particles.node[row] = sphere.GetGeometry().NodeIndex(0);
  particles.element_id[row] = sphere.Id();
}

}  // namespace

void FillParticles(ModelPart& spheres, MaterialIndex& materials, ParticleStorage& particles,
                   int dimension) {
  particles.Resize(spheres.NumberOfElements());
  const ProcessInfo& info = spheres.GetProcessInfo();
  std::size_t row = 0;
  for (Element& element : spheres.Elements()) {
    const SphericParticle& sphere = CheckedParticle(spheres, element, info, dimension);
    SetConstants(sphere, materials.IndexOf(&sphere.GetProperties()), row++, dimension, particles);
  }
  ReadParticlesFromNodes(spheres, particles);
  // From the initial coordinates (a model written mid-run has moved).
  const NodalDatabase& db = spheres.Nodal();
  for (std::size_t i = 0; i < particles.size(); ++i)
    particles.displacement[i] = particles.position[i] - db.InitialCoordinates(particles.node[i]);
}

void AppendParticle(ModelPart& spheres, const Element& element, const MaterialIndex& materials,
                    ParticleStorage& particles, int dimension) {
  const SphericParticle& sphere =
      CheckedParticle(spheres, element, spheres.GetProcessInfo(), dimension);
  const int material = materials.Find(&sphere.GetProperties());
  if (material < 0)
    TESSERA_ERROR(element.Info(), ": its Properties ", sphere.GetProperties().Id(),
                  " were not known when the DEM strategy started (register the materials of "
                  "particles inserted later before Initialize)");
  const std::size_t row = particles.size();
  // Shared columns grow with the nodes: only where the new node is this row.
  if (particles.SharesColumnsWithNodes() && element.GetGeometry().NodeIndex(0) != row)
    particles.OwnColumns();
  particles.AppendRow();
  SetConstants(sphere, material, row, dimension, particles);
  NodalDatabase& db = spheres.Nodal();
  const IndexType node = particles.node[row];
  particles.position[row] = db.Coordinates(node);
  particles.displacement[row] = db.Coordinates(node) - db.InitialCoordinates(node);
  if (db.HasHistoricalVariable(VELOCITY))
    particles.velocity[row] = db.HistoricalColumn(VELOCITY).Data()[node];
  if (db.HasHistoricalVariable(ANGULAR_VELOCITY))
    particles.angular_velocity[row] = db.HistoricalColumn(ANGULAR_VELOCITY).Data()[node];
}

// The node syncs run every step of a stage (before and after it) and move
// some 200 bytes per particle: they go column by column over blocks of rows,
// each copy a loop with its two pointers in registers (a loop over the
// columns inside the loop over rows reloads them per value).
namespace {

constexpr std::size_t kSyncBlockRows = 4096;

template <class Body>
void ForRowBlocks(std::size_t n, Body&& body) {
  const std::size_t blocks = (n + kSyncBlockRows - 1) / kSyncBlockRows;
  ParallelBlocks(n, blocks, [&](std::size_t b) {
    body(b * kSyncBlockRows, std::min(n, (b + 1) * kSyncBlockRows));
  });
}

// Rows to nodes: row i's node is node[i], the copies between rows and nodal
// columns go through it. Where the nodes follow the rows (node[i] = node[0] +
// i for every row: the strategy lays them out so with ModelPart::ReorderNodes)
// a gather or scatter is a plain block copy, without the index loads.
struct RowNodes {
  const IndexType* node;
  bool contiguous;

  // The check runs twice a step over every row: an OR of differences, which
  // the compiler vectorises (a loop that stopped at the first difference
  // kept the flag in memory and took a third of the node read).
  explicit RowNodes(const std::vector<IndexType>& nodes) : node(nodes.data()), contiguous(true) {
    const std::uint64_t first = nodes.empty() ? 0 : nodes[0];
    std::uint64_t difference = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) difference |= nodes[i] ^ (first + i);
    contiguous = difference == 0;
  }
  // A column shared with the nodes (ParticleStorage::ShareColumnsWithNodes)
  // is its own source: nothing to copy.
  template <class T>
  bool Same(const T* rows, const T* nodes) const {
    return contiguous && nodes + node[0] == rows;
  }
  // to[i] = from[node[i]] over [begin, end).
  template <class T>
  void Gather(const T* from, T* to, std::size_t begin, std::size_t end) const {
    if (Same(to, from)) return;
    if (contiguous) {
      std::copy(from + node[0] + begin, from + node[0] + end, to + begin);
      return;
    }
    for (std::size_t i = begin; i < end; ++i) to[i] = from[node[i]];
  }
  // to[node[i]] = from[i] over [begin, end).
  template <class T>
  void Scatter(const T* from, T* to, std::size_t begin, std::size_t end) const {
    if (Same(from, to)) return;
    if (contiguous) {
      std::copy(from + begin, from + end, to + node[0] + begin);
      return;
    }
    for (std::size_t i = begin; i < end; ++i) to[node[i]] = from[i];
  }
};

}  // namespace

void ReadParticlesFromNodes(ModelPart& spheres, ParticleStorage& particles) {
  NodalDatabase& db = spheres.Nodal();
  const std::size_t n = particles.size();
  if (n == 0) return;
  const Array3* velocity = HistoricalData(db, VELOCITY);
  const Array3* angular = HistoricalData(db, ANGULAR_VELOCITY);
  const Array3* external_force = HistoricalData(db, EXTERNAL_APPLIED_FORCE);
  const Array3* external_moment = HistoricalData(db, EXTERNAL_APPLIED_MOMENT);
  const FixityColumns fixity(db);
  const Array3* coordinates = &db.Coordinates(0);
  const IndexType* node = particles.node.data();
  const RowNodes rows(particles.node);
  Array3* position = particles.position.data();
  // A column the model part does not declare reads as zero.
  auto gather_or_zero = [&rows](const Array3* from, Array3* to, std::size_t begin,
                                std::size_t end) {
    if (from)
      rows.Gather(from, to, begin, end);
    else
      std::fill(to + begin, to + end, Array3{});
  };
  // The optional columns: one entry per row where the variable is declared,
  // none (and their memory released) where it is not. (A shared column is
  // the nodal one.) The elastic forces' new rows are zero until the next
  // force evaluation sums them.
  auto size_optional = [n](RowColumn<Array3>& column, const Array3* from) {
    std::vector<Array3>* owned = column.Owned();
    if (owned == nullptr) return;
    if (from)
      owned->resize(n);
    else
      std::vector<Array3>().swap(*owned);
  };
  size_optional(particles.external_force, external_force);
  size_optional(particles.external_moment, external_moment);
  size_optional(particles.elastic_force, HistoricalData(db, ELASTIC_FORCES));
  ForRowBlocks(n, [&](std::size_t begin, std::size_t end) {
    rows.Gather(coordinates, position, begin, end);
    gather_or_zero(velocity, particles.velocity.data(), begin, end);
    gather_or_zero(angular, particles.angular_velocity.data(), begin, end);
    if (external_force) rows.Gather(external_force, particles.external_force.data(), begin, end);
    if (external_moment) rows.Gather(external_moment, particles.external_moment.data(), begin, end);
    fixity.Bits(node, rows.contiguous, particles.fixed.data(), begin, end);
  });
}

void AddParticleVelocityDofs(Node node) {
  for (const VariableBase* dof : kVelocityDofs) node.AddDof(*dof);
}

void WriteParticlesToNodes(ParticleStorage& particles, ModelPart& spheres,
                           bool displacements_from_coordinates) {
  NodalDatabase& db = spheres.Nodal();
  const std::size_t n = particles.size();
  if (n == 0) return;
  struct Target {
    Array3* column;
    const Array3* values;
  };
  // Runs every step: a fixed array, no allocation.
  std::array<Target, 9> targets;
  std::size_t count = 0;
  // (A column without rows is the elastic forces', declared since the rows
  // were last read from the nodes: the nodes keep their values until then.)
  auto add = [&](const Variable<Array3>& variable, const RowColumn<Array3>& values) {
    if (Array3* column = HistoricalData(db, variable); column && values.size() == n)
      targets[count++] = {column, values.data()};
  };
  add(VELOCITY, particles.velocity);
  add(ANGULAR_VELOCITY, particles.angular_velocity);
  add(DISPLACEMENT, particles.displacement);
  add(DELTA_DISPLACEMENT, particles.delta_displacement);
  add(TOTAL_FORCES, particles.force);
  add(CONTACT_FORCES, particles.contact_force);
  add(ELASTIC_FORCES, particles.elastic_force);
  add(PARTICLE_MOMENT, particles.torque);
  add(PARTICLE_ROTATION_ANGLE, particles.rotation_angle);
  double* radius = HistoricalData(db, RADIUS);
  Array3* coordinates = &db.Coordinates(0);
  const Array3* initial = &db.InitialCoordinates(0);
  const IndexType* node = particles.node.data();
  const Array3* position = particles.position.data();
  Array3* displacement = particles.displacement.data();
  const RowNodes rows(particles.node);
  ForRowBlocks(n, [&](std::size_t begin, std::size_t end) {
    // x - x0 (the steps leave it: ParticleStorage::displacement).
    if (displacements_from_coordinates && rows.contiguous) {
      const Array3* x0 = initial + node[0];
      for (std::size_t i = begin; i < end; ++i) displacement[i] = position[i] - x0[i];
    } else if (displacements_from_coordinates) {
      for (std::size_t i = begin; i < end; ++i) displacement[i] = position[i] - initial[node[i]];
    }
    rows.Scatter(position, coordinates, begin, end);
    for (std::size_t t = 0; t < count; ++t)
      rows.Scatter(targets[t].values, targets[t].column, begin, end);
    if (radius) rows.Scatter(particles.radius.data(), radius, begin, end);
  });
}

}  // namespace tessera::dem
