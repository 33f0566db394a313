// ParticleStorage: the spheres of a DEM model as rows of contiguous arrays
// (structure of arrays), what the search, contact and integration loops run over.
//
// A row is filled from one SphericParticle3D element of the spheres model part
// (its centre node's coordinates, RADIUS, VELOCITY, ANGULAR_VELOCITY and the
// element's material) and written back to that node's historical values, so
// that scripts and output read results from the model part as in Kratos; where
// row i is node i of a database holding nothing else, the state and force
// columns are those nodal columns instead (ShareColumnsWithNodes). Rows start
// in the order of the model part's elements (the strategy may sort them in
// space); the node is referred to by its position in the root's NodalDatabase.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "applications/dem/particles/row_column.h"
#include "kernel/core/array3.h"
#include "kernel/core/types.h"

namespace tessera {
class ModelPart;
class Node;
class Properties;
class Element;
class NodalDatabase;
}  // namespace tessera

namespace tessera::dem {

// Bits of ParticleStorage::fixed: a component whose nodal dof is fixed keeps
// the velocity found on the node instead of being integrated.
enum FixedBits : std::uint8_t {
  kFixedVelocityX = 1,
  kFixedVelocityY = 2,
  kFixedVelocityZ = 4,
  kFixedAngularX = 8,
  kFixedAngularY = 16,
  kFixedAngularZ = 32,
};

struct ParticleStorage {
  // The columns of type RowColumn may share the storage of the nodal columns
  // (ShareColumnsWithNodes); the others are always the rows' own.

  // ---- state
  RowColumn<Array3> position;  // the node's coordinates
  RowColumn<Array3> velocity;
  RowColumn<Array3> angular_velocity;
  // Displacement of the node from its initial coordinates (DISPLACEMENT, as
  // in Kratos): x - x0, set at Fill and when the rows are written to the
  // nodes; in a periodic domain, whose coordinates jump, advanced by each
  // move instead (row_integration.h).
  RowColumn<Array3> displacement;
  // Increments of the last step: contacts use them for the tangential
  // displacement (thesis eq. 2.31).
  RowColumn<Array3> delta_displacement;
  std::vector<Array3> delta_rotation;
  // Accumulated rotation angle (PARTICLE_ROTATION_ANGLE).
  RowColumn<Array3> rotation_angle;
  // Applied loads read from the nodes (EXTERNAL_APPLIED_FORCE / _MOMENT, set by
  // apply_forces_and_moments_process). Optional columns: empty, and every
  // row's load zero, when the model part does not declare the variable (most
  // runs), so that they cost no memory then; otherwise one entry per row.
  // Shared with their nodal columns where the rows share theirs.
  RowColumn<Array3> external_force;
  RowColumn<Array3> external_moment;

  // ---- forces of the last force evaluation
  RowColumn<Array3> force;          // total: contacts + gravity (TOTAL_FORCES)
  RowColumn<Array3> torque;         // total moment (PARTICLE_MOMENT)
  RowColumn<Array3> contact_force;  // sum of contact forces (CONTACT_FORCES)
  // The elastic part of the contact forces (ELASTIC_FORCES): an optional
  // column, as the applied loads, summed only where the model part declares
  // the variable. Nothing in a step reads it back, and its sums (two adds per
  // contact, a finish per row) were a few per cent of a mixer step.
  RowColumn<Array3> elastic_force;

  // ---- Gear predictor–corrector (strategies/gear_scheme.h): the acceleration
  // and its first two rates of the centre and, with Direct_Integration, of the
  // rotation. Optional columns: no rows unless the scheme is chosen (the
  // strategy sizes them at Initialize and sets the flags), then one entry per
  // row, following every whole-row operation even while there are no rows
  // (a run whose spheres all come from inlets).
  std::array<std::vector<Array3>, 3> gear;
  std::array<std::vector<Array3>, 3> gear_angular;
  bool has_gear = false, has_gear_angular = false;

  // ---- constants of each particle
  std::vector<double> radius;
  std::vector<double> mass;
  std::vector<double> inertia;  // of a solid sphere, 2/5 m R^2 (of a disc, 1/2 m R^2)
  std::vector<int> material;    // index into the material list (MaterialIndex)
  std::vector<IndexType> node;  // position of the centre node in the root's database
  std::vector<IdType> element_id;
  std::vector<std::uint8_t> fixed;  // FixedBits
  // 0: integrated; k + 1: glued to sticky wall k, moved with it instead
  // (walls/glued_particles.h).
  std::vector<std::uint32_t> glued;
  // 0: a free sphere; k + 1: a member of rigid cluster k (particles/rigid_clusters.h),
  // placed with its cluster instead of being integrated.
  std::vector<std::uint32_t> cluster;

  std::size_t size() const { return radius.size(); }
  // The whole-row operations below change the owned columns; a shared column
  // follows its nodes instead (the database adds, removes and reorders them
  // with its columns), so the caller changes the nodes alike. Resize owns
  // every column first.
  void Resize(std::size_t n);
  // Adds one row of zeros at the end (particles inserted while running).
  void AppendRow();
  // Keeps the rows with keep[i] != 0, in order.
  void Compact(const std::vector<std::uint8_t>& keep);
  // Reorders the rows: row order[k] becomes row k (each row listed at most
  // once); the rows absent from `order` are dropped.
  void Permute(const std::vector<std::uint32_t>& order);
  // Bytes the owned columns hold (their capacity), for the memory report.
  std::size_t HeldBytes() const;

  // Where `db` holds exactly these rows' nodes, row i at node i, the position
  // column shares the coordinates and each RowColumn the historical column of
  // its variable (VELOCITY, ANGULAR_VELOCITY, DISPLACEMENT, DELTA_DISPLACEMENT,
  // TOTAL_FORCES, PARTICLE_MOMENT, CONTACT_FORCES, ELASTIC_FORCES,
  // PARTICLE_ROTATION_ANGLE; current step) where the database declares it. An
  // owned column's values are copied there first (the rows are what counts);
  // a column shared already only moves to the database's current storage (a
  // new solution step's). The applied-load columns (EXTERNAL_APPLIED_FORCE,
  // _MOMENT) share too, but as the nodes are their source, an owned one's
  // values are dropped, not copied there; undeclared, they stay empty, as
  // elastic_force does where ELASTIC_FORCES is not declared.
  // Anywhere else every column is owned (OwnColumns). Returns whether they
  // share.
  bool ShareColumnsWithNodes(NodalDatabase& db);
  // Every column owns its values again (copies of the shared ones).
  void OwnColumns();
  bool SharesColumnsWithNodes() const { return position.Shared(); }

 private:
  // The database shared with, and its layout then (a check of every row's
  // node is needed only where either changed).
  const NodalDatabase* shared_database_ = nullptr;
  std::uint64_t shared_layout_ = 0;

  // Calls f on every RowColumn of `rows` (a ParticleStorage, const or not).
  template <class Rows, class F>
  static void ForEachRowColumn(Rows& rows, F f) {
    for (auto* v : {&rows.position, &rows.velocity, &rows.angular_velocity, &rows.displacement,
                    &rows.delta_displacement, &rows.rotation_angle, &rows.force, &rows.torque,
                    &rows.contact_force})
      f(*v);
  }
  // Calls f on every owned column (the vectors above) of `rows`, for the
  // whole-row operations; an optional column only while it holds rows (an
  // empty one stays empty).
  template <class Rows, class F>
  static void ForEachColumn(Rows& rows, F f) {
    ForEachRowColumn(rows, [&f](auto& column) {
      if (auto* owned = column.Owned()) f(*owned);
    });
    f(rows.delta_rotation);
    for (auto* v : {&rows.external_force, &rows.external_moment, &rows.elastic_force})
      if (auto* owned = v->Owned(); owned && !owned->empty()) f(*owned);
    if (rows.has_gear)
      for (auto& column : rows.gear) f(column);
    if (rows.has_gear_angular)
      for (auto& column : rows.gear_angular) f(column);
    f(rows.radius), f(rows.mass), f(rows.inertia), f(rows.material), f(rows.node),
        f(rows.element_id), f(rows.fixed), f(rows.glued), f(rows.cluster);
  }
};

// Properties -> material index, in order of first appearance; walls and
// particles share one index space so that one pair table serves both contacts.
class MaterialIndex {
 public:
  int IndexOf(const Properties* properties);     // adds it if new
  int Find(const Properties* properties) const;  // -1 if absent
  const std::vector<const Properties*>& List() const { return list_; }
  std::size_t size() const { return list_.size(); }

 private:
  std::vector<const Properties*> list_;
};

// Fills `particles` from the elements of `spheres` (a root model part or a sub
// model part of one). With `dimension` 3 each element must be a spherical
// particle (SphericParticle3D and its aliases), with 2 a disc
// (CylinderParticle2D, unit thickness); each with one node, a positive radius
// and a particle material (its Check() is called); anything else is an error
// naming the element. Mass and inertia come from PARTICLE_DENSITY and the
// radius (sphere: 4/3 ρ π R³ and 2/5 m R²; disc: ρ π R² and 1/2 m R²). The
// historical VELOCITY and ANGULAR_VELOCITY of the nodes are read when the model
// part declares them (zero otherwise).
void FillParticles(ModelPart& spheres, MaterialIndex& materials, ParticleStorage& particles,
                   int dimension = 3);

// Appends the row of one more element of `spheres` (checked as FillParticles
// does), whose material `materials` must hold already (the material pair table
// is built from it); its state comes from its node, its force is zero.
void AppendParticle(ModelPart& spheres, const Element& element, const MaterialIndex& materials,
                    ParticleStorage& particles, int dimension = 3);

// Velocities, angular velocities, coordinates, fixities and applied loads from the nodes: what
// a process or a script may have changed between two steps. (Displacements
// follow moved coordinates at the next WriteParticlesToNodes.) The optional
// columns follow the model part's declarations: the applied loads and the
// elastic forces have a row each where their variable is declared, none
// where it is not.
void ReadParticlesFromNodes(ModelPart& spheres, ParticleStorage& particles);

// The results to the nodes: coordinates, and the historical VELOCITY,
// ANGULAR_VELOCITY, DISPLACEMENT, DELTA_DISPLACEMENT, TOTAL_FORCES,
// CONTACT_FORCES, ELASTIC_FORCES, PARTICLE_MOMENT, PARTICLE_ROTATION_ANGLE and
// RADIUS of each particle's node (each written only if the model part declares
// it and, for ELASTIC_FORCES, the rows hold it). The rows' displacements are
// set to x - x0 first, unless `displacements_from_coordinates` is false (a
// periodic domain, where coordinates jump by whole periods and the steps
// advance them).
void WriteParticlesToNodes(ParticleStorage& particles, ModelPart& spheres,
                           bool displacements_from_coordinates = true);

// Declares the historical variables WriteParticlesToNodes writes, but
// ELASTIC_FORCES only with `elastic_forces`: the strategy sums the elastic
// parts of the contact forces per particle only where that variable is
// declared (a script, or the stage's PostElasticForces, declares it).
void DeclareParticleVariables(ModelPart& spheres, bool elastic_forces = false);

// Gives a particle's node the six velocity dofs (VELOCITY_X .. ANGULAR_VELOCITY_Z,
// the FixedBits in order), so that processes can fix them: for nodes made
// during a run (inserted, adopted, cluster members).
void AddParticleVelocityDofs(Node node);

}  // namespace tessera::dem
